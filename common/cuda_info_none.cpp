// Build without CUDA: no devices, nothing to bind.
#include "common/cuda_info.hpp"

namespace tpb {

CudaInfo query_cuda_info() { return CudaInfo{}; }

void bind_cuda_device(int /*index*/) {}

std::string cuda_device_name(int /*index*/) { return {}; }

std::string cuda_error_line(const std::string& call, int status) {
  return call + ": error " + std::to_string(status) + " (this build has no CUDA)";
}

}  // namespace tpb
