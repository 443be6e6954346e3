#pragma once
// Launch shape of the decode-attention kernel (flash-decoding): how the c+1
// positions of each (sequence, kv head) are split into chunks, one thread
// block per chunk, so that short batches still fill the GPU. Host-only
// arithmetic, unit-tested without a device.
#include <cstddef>

namespace tpb::gpu {

struct AttentionShape {
  int batch = 0;       // sequences
  int n_q_heads = 0;   // query heads on this rank
  int n_kv_heads = 0;  // key/value heads on this rank; divides n_q_heads (GQA)
  int head_dim = 0;    // even, at most kMaxAttentionHeadDim
  int capacity = 0;    // positions the KV cache holds per (sequence, kv head)
  int n_ctx = 0;       // positions attended: the history plus the new token, at most capacity
};

inline constexpr int kMaxAttentionHeadDim = 256;
inline constexpr int kAttentionThreads = 256;
// Dynamic shared memory a block may use without opting in (48 KiB on every GPU).
inline constexpr std::size_t kAttentionSmemBytes = 48 * 1024;
// A block handles at least this many positions: below it, the per-block setup
// (loading q, two reductions) outweighs the work.
inline constexpr int kMinAttentionChunk = 64;
// Positions per chunk are a multiple of this (one warp's worth).
inline constexpr int kAttentionChunkQuantum = 32;

struct AttentionPlan {
  int chunk = 0;       // positions per block (the last block may get fewer, never zero)
  int num_splits = 0;  // blocks per (sequence, kv head): ceil(n_ctx / chunk)
  std::size_t smem_bytes = 0;
  // Scratch for num_splits > 1 (unused when 1): per (sequence, q head, split)
  // the un-normalised output (head_dim floats), the running max and the sum of
  // exponentials (one float each).
  std::size_t partial_out_floats = 0;
  std::size_t partial_stat_floats = 0;  // for each of max and sum
};

// sm_count: the device's multiprocessor count; the plan aims at two blocks per SM.
// Throws tpb::Error when the shape is invalid or one block cannot hold its
// group's q vectors and a minimal chunk of scores in shared memory.
AttentionPlan plan_attention(const AttentionShape& shape, int sm_count);

}  // namespace tpb::gpu
