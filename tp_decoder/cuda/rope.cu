// RoPE kernel and launcher (rope.cuh).
#include "common/cuda_check.hpp"
#include "tp_decoder/cuda/device_math.cuh"
#include "tp_decoder/cuda/rope.cuh"

namespace tpb::gpu {
namespace {

constexpr int kRopeThreads = 128;

// One thread per (sequence, rotated head, pair i): q heads and k heads are
// contiguous at the start of a row, so "rotated head" h < n_q + n_kv indexes both.
__global__ void rope_kernel(bf16* qkv, RopeShape shape, const float* inv_freq, int position) {
  const int half = shape.head_dim / 2;
  const int heads = shape.n_q_heads + shape.n_kv_heads;
  const int pair = blockIdx.x * blockDim.x + threadIdx.x;
  if (pair >= heads * half) return;
  const int head = pair / half;
  const int i = pair % half;
  bf16* x = qkv + static_cast<size_t>(blockIdx.y) * shape.row_stride + static_cast<size_t>(head) * shape.head_dim;
  // fp32 angle, as Hugging Face computes it (position_ids.float() @ inv_freq).
  float sin_angle, cos_angle;
  sincosf(static_cast<float>(position) * inv_freq[i], &sin_angle, &cos_angle);
  const float x0 = to_float(x[i]);
  const float x1 = to_float(x[i + half]);
  x[i] = to_bf16(x0 * cos_angle - x1 * sin_angle);
  x[i + half] = to_bf16(x1 * cos_angle + x0 * sin_angle);
}

}  // namespace

void rope(bf16* qkv, const RopeShape& shape, const float* inv_freq, int position, cudaStream_t stream) {
  TPB_CHECK(shape.batch > 0 && shape.n_q_heads > 0 && shape.n_kv_heads > 0, "rope: empty shape");
  TPB_CHECK(shape.head_dim > 0 && shape.head_dim % 2 == 0, "rope: head_dim must be positive and even");
  TPB_CHECK(shape.row_stride >= (shape.n_q_heads + shape.n_kv_heads) * shape.head_dim,
            "rope: row_stride smaller than the q and k heads it must hold");
  TPB_CHECK(position >= 0, "rope: position must be non-negative");
  const int pairs = (shape.n_q_heads + shape.n_kv_heads) * (shape.head_dim / 2);
  const dim3 grid(ceil_div(pairs, kRopeThreads), shape.batch);
  rope_kernel<<<grid, kRopeThreads, 0, stream>>>(qkv, shape, inv_freq, position);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tpb::gpu
