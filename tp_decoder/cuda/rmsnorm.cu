// RMSNorm kernel and launcher (rmsnorm.cuh).
#include "common/cuda_check.hpp"
#include "tp_decoder/cuda/device_math.cuh"
#include "tp_decoder/cuda/rmsnorm.cuh"

namespace tpb::gpu {
namespace {

constexpr int kRmsnormThreads = 256;

// One block per row: a block-wide sum of squares, then a second pass over the
// row (served from L1/L2: a row is at most a few tens of KiB).
__global__ void rmsnorm_kernel(bf16* out, const bf16* in, const bf16* weight, int cols, float eps) {
  const bf16* row_in = in + static_cast<size_t>(blockIdx.x) * cols;
  bf16* row_out = out + static_cast<size_t>(blockIdx.x) * cols;
  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    const float x = to_float(row_in[i]);
    sum_sq += x * x;
  }
  const float inv_rms = rsqrtf(block_sum(sum_sq) / static_cast<float>(cols) + eps);
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    row_out[i] = to_bf16(to_float(row_in[i]) * inv_rms * to_float(weight[i]));
}

}  // namespace

void rmsnorm(bf16* out, const bf16* in, const bf16* weight, int rows, int cols, float eps, cudaStream_t stream) {
  TPB_CHECK(rows > 0 && cols > 0, "rmsnorm: rows and cols must be positive");
  TPB_CHECK(eps > 0.0f, "rmsnorm: eps must be positive");
  rmsnorm_kernel<<<rows, kRmsnormThreads, 0, stream>>>(out, in, weight, cols, eps);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tpb::gpu
