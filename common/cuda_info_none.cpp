// Build without CUDA: no devices, nothing to bind.
#include "common/cuda_info.hpp"

namespace tpb {

CudaInfo query_cuda_info() { return CudaInfo{}; }

void bind_cuda_device(int /*index*/) {}

}  // namespace tpb
