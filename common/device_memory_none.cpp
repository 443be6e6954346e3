// Build without CUDA: no device memory to report.
#include "common/device_memory.hpp"

namespace tpb {

std::optional<DeviceMemory> query_device_memory() { return std::nullopt; }

}  // namespace tpb
