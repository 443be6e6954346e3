#pragma once
// The new token's attention: write its k and v into the KV cache, then GQA
// decode attention over the cache (flash-decoding: the context of each
// (sequence, kv head) is split into plan.num_splits chunks handled by separate
// blocks, whose partial results a combine kernel merges).
//
// KV cache layout, one per layer and per k and v: (batch, kv_heads, positions, head_dim) bf16
// (attention_shape.hpp). The new token's q, k, v sit in one row per sequence of
// the QKV GEMM output: q heads at [0, q_heads*head_dim), k heads at k_offset, v
// heads at v_offset.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "tp_decoder/cuda/attention_plan.hpp"

namespace tpb::gpu {

struct QkvLayout {
  int row_stride = 0;  // elements between consecutive sequences' rows
  int k_offset = 0;    // first k element within a row
  int v_offset = 0;    // first v element within a row
};

struct AttentionWorkspace {      // device scratch sized by AttentionPlan (may be null when num_splits == 1)
  float* partial_out = nullptr;  // (batch, q_heads, num_splits, head_dim)
  float* partial_max = nullptr;  // (batch, q_heads, num_splits)
  float* partial_sum = nullptr;  // (batch, q_heads, num_splits)
};

// Copies the new token's k and v heads into position `position` of the caches.
void kv_write(__nv_bfloat16* k_cache, __nv_bfloat16* v_cache, const __nv_bfloat16* qkv, const QkvLayout& layout,
              const AttentionShape& shape, int position, cudaStream_t stream);

// out: (batch, q_heads * head_dim) bf16. Attends q to positions [0, n_ctx) of
// the caches with scale 1/sqrt(head_dim); q head h reads kv head
// h / (q_heads / kv_heads). `plan` must come from plan_attention(shape, n_ctx, ...).
void decode_attention(__nv_bfloat16* out, const __nv_bfloat16* qkv, const QkvLayout& layout,
                      const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, const AttentionShape& shape,
                      int n_ctx, const AttentionPlan& plan, const AttentionWorkspace& workspace, cudaStream_t stream);

}  // namespace tpb::gpu
