#pragma once
// Rotary position embedding of the new token's q and k heads, in place, in the
// Hugging Face "rotate_half" layout: dimension i pairs with i + head_dim/2.
//   angle = position * inv_freq[i]            (i < head_dim/2)
//   x[i]      <- x[i] cos(angle) - x[i+half] sin(angle)
//   x[i+half] <- x[i+half] cos(angle) + x[i] sin(angle)
// inv_freq already carries any rope scaling (llama3), so this kernel is the
// same for every rope type.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace tpb::gpu {

struct RopeShape {
  int batch = 0;       // sequences, one new token each
  int row_stride = 0;  // elements between consecutive sequences' rows of qkv
  int n_q_heads = 0;   // q heads at the start of each row
  int n_kv_heads = 0;  // k heads right after the q heads (v, after them, is not rotated)
  int head_dim = 0;    // even
};

// qkv: (batch, row_stride) bf16; inv_freq: (head_dim / 2) fp32 on the device.
void rope(__nv_bfloat16* qkv, const RopeShape& shape, const float* inv_freq, int position, cudaStream_t stream);

}  // namespace tpb::gpu
