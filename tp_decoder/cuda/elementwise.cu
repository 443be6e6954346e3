// Elementwise kernels and launchers (elementwise.cuh).
#include "common/cuda_check.hpp"
#include "tp_decoder/cuda/device_math.cuh"
#include "tp_decoder/cuda/elementwise.cuh"

namespace tpb::gpu {
namespace {

constexpr int kElementwiseThreads = 256;
// Grid-stride loops: enough blocks to fill any current GPU, no more.
constexpr int kMaxElementwiseBlocks = 4096;

int elementwise_blocks(std::size_t n) {
  const std::size_t wanted = (n + kElementwiseThreads - 1) / kElementwiseThreads;
  return static_cast<int>(wanted < kMaxElementwiseBlocks ? wanted : kMaxElementwiseBlocks);
}

__global__ void add_inplace_kernel(bf16* x, const bf16* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    x[i] = to_bf16(to_float(x[i]) + to_float(y[i]));
}

__global__ void broadcast_rows_kernel(bf16* out, const bf16* bias, int rows, int cols) {
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = bias[i % cols];
}

__global__ void silu_mul_kernel(bf16* out, const bf16* gate, const bf16* up, int rows, int cols, int in_stride) {
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t r = i / cols;
    const std::size_t in_index = r * in_stride + i % cols;
    const float g = to_float(gate[in_index]);
    out[i] = to_bf16(g / (1.0f + expf(-g)) * to_float(up[in_index]));
  }
}

}  // namespace

void add_inplace(bf16* x, const bf16* y, std::size_t n, cudaStream_t stream) {
  TPB_CHECK(n > 0, "add_inplace: n must be positive");
  add_inplace_kernel<<<elementwise_blocks(n), kElementwiseThreads, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

void broadcast_rows(bf16* out, const bf16* bias, int rows, int cols, cudaStream_t stream) {
  TPB_CHECK(rows > 0 && cols > 0, "broadcast_rows: rows and cols must be positive");
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  broadcast_rows_kernel<<<elementwise_blocks(n), kElementwiseThreads, 0, stream>>>(out, bias, rows, cols);
  CUDA_CHECK_LAUNCH();
}

void silu_mul(bf16* out, const bf16* gate, const bf16* up, int rows, int cols, int in_stride, cudaStream_t stream) {
  TPB_CHECK(rows > 0 && cols > 0, "silu_mul: rows and cols must be positive");
  TPB_CHECK(in_stride >= cols, "silu_mul: in_stride must be at least cols");
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  silu_mul_kernel<<<elementwise_blocks(n), kElementwiseThreads, 0, stream>>>(out, gate, up, rows, cols, in_stride);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tpb::gpu
