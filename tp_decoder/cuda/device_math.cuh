#pragma once
// Device helpers shared by the decoder's kernels: bf16 <-> fp32 conversion,
// warp and block reductions, and the ceil-division used by every launcher.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace tpb::gpu {

using bf16 = __nv_bfloat16;

inline constexpr int kWarpSize = 32;

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

__device__ inline float to_float(bf16 x) { return __bfloat162float(x); }
__device__ inline bf16 to_bf16(float x) { return __float2bfloat16(x); }  // round to nearest even

__device__ inline float warp_sum(float v) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ inline float warp_max(float v) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Sum over the block, returned to every thread. blockDim.x must be a multiple of
// 32 (at most 1024) and every thread of the block must call it.
__device__ inline float block_sum(float v) {
  __shared__ float warp_partials[kWarpSize];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int n_warps = blockDim.x / kWarpSize;
  v = warp_sum(v);
  if (lane == 0) warp_partials[warp] = v;
  __syncthreads();
  v = lane < n_warps ? warp_partials[lane] : 0.0f;
  v = warp_sum(v);
  __syncthreads();  // a second call may overwrite warp_partials only after every warp has read it
  return v;
}

}  // namespace tpb::gpu
