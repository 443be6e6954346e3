// Decode-attention launch shape (attention_plan.hpp).
#include "tp_decoder/cuda/attention_plan.hpp"

#include <algorithm>
#include <string>

#include "common/error.hpp"

namespace tpb::gpu {
namespace {

int ceil_div_int(int a, int b) { return (a + b - 1) / b; }
int round_up(int a, int quantum) { return ceil_div_int(a, quantum) * quantum; }

void validate(const AttentionShape& s, int n_ctx, int sm_count) {
  TPB_CHECK(s.batch > 0 && s.q_heads > 0 && s.kv_heads > 0, "attention: batch and head counts must be positive");
  TPB_CHECK(s.q_heads % s.kv_heads == 0, "attention: kv_heads " + std::to_string(s.kv_heads) +
                                             " does not divide q_heads " + std::to_string(s.q_heads));
  TPB_CHECK(s.head_dim > 0 && s.head_dim % 2 == 0 && s.head_dim <= kMaxAttentionHeadDim,
            "attention: head_dim " + std::to_string(s.head_dim) + " must be even and at most " +
                std::to_string(kMaxAttentionHeadDim));
  TPB_CHECK(n_ctx >= 1 && n_ctx <= s.positions, "attention: n_ctx " + std::to_string(n_ctx) +
                                                   " outside [1, positions " + std::to_string(s.positions) + "]");
  TPB_CHECK(sm_count > 0, "attention: sm_count must be positive");
}

}  // namespace

AttentionPlan plan_attention(const AttentionShape& shape, int n_ctx, int sm_count) {
  validate(shape, n_ctx, sm_count);
  const int group = shape.q_heads / shape.kv_heads;
  // Shared memory per block: the group's q vectors, one score per (q head,
  // position of the chunk), and a max and a sum per q head.
  const int fixed_floats = group * shape.head_dim + 2 * group;
  const int budget_floats = static_cast<int>(kAttentionSmemBytes / sizeof(float)) - fixed_floats;
  const int max_chunk = budget_floats / group / kAttentionChunkQuantum * kAttentionChunkQuantum;
  TPB_CHECK(max_chunk >= kAttentionChunkQuantum,
            "attention: " + std::to_string(group) + " q heads per kv head of dimension " +
                std::to_string(shape.head_dim) + " do not fit one block's shared memory");

  // Enough splits that batch * kv_heads * num_splits blocks give every SM two,
  // but no chunk below kMinAttentionChunk positions and none above max_chunk.
  const int base_blocks = shape.batch * shape.kv_heads;
  const int wanted_splits = std::max(1, ceil_div_int(2 * sm_count, base_blocks));
  int chunk = std::max(ceil_div_int(n_ctx, wanted_splits), kMinAttentionChunk);
  chunk = std::min(round_up(chunk, kAttentionChunkQuantum), max_chunk);
  chunk = std::min(chunk, round_up(n_ctx, kAttentionChunkQuantum));  // one short chunk: size it to fit

  AttentionPlan plan;
  plan.chunk = chunk;
  plan.num_splits = ceil_div_int(n_ctx, chunk);
  plan.smem_bytes = static_cast<std::size_t>(fixed_floats + group * chunk) * sizeof(float);
  if (plan.num_splits > 1) {
    const std::size_t rows = static_cast<std::size_t>(shape.batch) * shape.q_heads * plan.num_splits;
    plan.partial_out_floats = rows * shape.head_dim;
    plan.partial_stat_floats = rows;
  }
  return plan;
}

}  // namespace tpb::gpu
