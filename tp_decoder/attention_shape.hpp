#pragma once
// One rank's attention layout for one layer: the one vocabulary the backends,
// their kernels and the tests share (plain data, usable in CUDA device code).
//   qkv row (one per sequence): [ q_heads * head_dim | kv_heads * head_dim (K) | kv_heads * head_dim (V) ]
//   K and V cache (batch, kv_heads * positions * head_dim): sequence b, head h, position p at
//     ((b * kv_heads + h) * positions + p) * head_dim
//   query head h reads KV head h / (q_heads / kv_heads)  (GQA; q_heads is a multiple of kv_heads)
// How many positions a call attends (at most `positions`) is passed beside it.
#include <cstdint>

namespace tpb {

struct AttentionShape {
  int batch = 0;      // sequences
  int q_heads = 0;    // query heads on this rank
  int kv_heads = 0;   // key/value heads on this rank; divides q_heads
  int head_dim = 0;
  int positions = 0;  // cache capacity per (sequence, kv head): context + 1
};

// Columns of the packed qkv activation: one row per sequence.
inline std::int64_t qkv_cols(const AttentionShape& s) {
  return static_cast<std::int64_t>(s.q_heads + 2 * s.kv_heads) * s.head_dim;
}
// Columns of a K or V cache tensor: one row per sequence.
inline std::int64_t cache_cols(const AttentionShape& s) {
  return static_cast<std::int64_t>(s.kv_heads) * s.positions * s.head_dim;
}

}  // namespace tpb
