#pragma once
// Launch shape of the decode-attention kernel (flash-decoding): how the c+1
// positions of each (sequence, kv head) are split into chunks, one thread
// block per chunk, so that short batches still fill the GPU. Host-only
// arithmetic, unit-tested without a device.
#include <cstddef>

#include "tp_decoder/attention_shape.hpp"

namespace tpb::gpu {

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

// n_ctx: positions attended (the history plus the new token), from 1 to
// shape.positions; head_dim even and at most kMaxAttentionHeadDim.
// sm_count: the device's multiprocessor count; the plan aims at two blocks per SM.
// Throws tpb::Error when the shape is invalid or one block cannot hold its
// group's q vectors and a minimal chunk of scores in shared memory.
AttentionPlan plan_attention(const AttentionShape& shape, int n_ctx, int sm_count);

}  // namespace tpb::gpu
