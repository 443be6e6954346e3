// CUDA build of common/device_memory.hpp: the runtime's view of the current device.
#include <cuda_runtime.h>

#include "common/device_memory.hpp"

namespace tpb {

std::optional<DeviceMemory> query_device_memory() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // no driver or no device: clear the error, report nothing (the
                         // rank's bootstrap has already named the reason: CudaInfo::device_error)
    return std::nullopt;
  }
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return DeviceMemory{free_bytes, total_bytes};
}

}  // namespace tpb
