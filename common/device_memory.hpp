#pragma once
// Free and total memory of the CUDA device this process is bound to
// (cudaMemGetInfo). Safe on any host: without CUDA, a driver or a device it
// reports nothing instead of failing.
#include <cstdint>
#include <optional>

namespace tpb {

struct DeviceMemory {
  std::uint64_t free_bytes = 0;
  std::uint64_t total_bytes = 0;
};

// nullopt when this build has no CUDA or the runtime sees no device.
std::optional<DeviceMemory> query_device_memory();

}  // namespace tpb
