#pragma once
// The KV-cache ledger: one named quantity, KV bytes per token, followed from
// the model through a paged allocator into the tokens and sequences a device
// can hold. Pure arithmetic on plain numbers (no model-config types), so the
// worked examples are unit tests of a few microseconds.
//
// Vocabulary (docs/ARCHITECTURE.md): kv_bytes_per_token (logical, or per
// device as allocated under TP-k), kv_replication, block_tokens,
// payload_bytes, allocated_bytes, tail_waste_bytes, table_entries,
// kv_tokens_per_device.
#include <cstdint>
#include <vector>

namespace tpb {

// What one token's K and V are made of.
struct KvCacheShape {
  int layers = 0;           // decoder layers holding a cache
  int kv_heads = 0;         // num_key_value_heads
  int head_dim = 0;
  int bytes_per_value = 0;  // 2 for bf16, 4 for f32
};

// Logical KV payload of one token: layers × 2 (K and V) × kv_heads × head_dim × bytes.
std::int64_t kv_bytes_per_token(const KvCacheShape& shape);

// One device of a TP-k group. KV heads are split over the k ranks when
// kv_heads >= k, and replicated when kv_heads < k: every rank then holds one
// KV head, and each head is held by k / kv_heads ranks (as vLLM does).
struct KvDeviceShare {
  int k = 1;
  int kv_heads_per_device = 0;          // max(1, kv_heads / k)
  int kv_replication = 1;               // copies of each KV head in the group: > 1 when kv_heads < k
  std::int64_t kv_bytes_per_token = 0;  // per device, as allocated
};

// `logical_bytes_per_token` is the whole model's figure (kv_bytes_per_token,
// or a stated override); it must split evenly over `kv_heads`, and k must
// divide kv_heads or be a multiple of it (what the shard plan accepts).
KvDeviceShare kv_device_share(std::int64_t logical_bytes_per_token, int kv_heads, int k);

// A block-table entry: one 32-bit block id, as in vLLM's block tables.
inline constexpr std::int64_t kDefaultTableEntryBytes = 4;

// One sequence under a paged allocator: its tokens occupy ceil(tokens /
// block_tokens) whole blocks, one block-table entry each.
struct PagedSequence {
  std::int64_t tokens = 0;
  std::int64_t payload_bytes = 0;     // tokens × bytes per token
  std::int64_t allocated_bytes = 0;   // whole blocks reserved
  std::int64_t tail_waste_bytes = 0;  // unused space in the final block
  std::int64_t table_entries = 0;     // blocks
};

struct PagedAllocation {
  int block_tokens = 0;
  std::int64_t bytes_per_token = 0;
  std::int64_t table_entry_bytes = 0;
  std::vector<PagedSequence> sequences;  // in the order given
  // Totals over the sequences.
  std::int64_t payload_bytes = 0;
  std::int64_t allocated_bytes = 0;
  std::int64_t tail_waste_bytes = 0;
  std::int64_t table_entries = 0;
  std::int64_t metadata_bytes = 0;  // table_entries × table_entry_bytes
};

// Every length >= 0, block_tokens >= 1, bytes_per_token >= 1, table_entry_bytes >= 1.
PagedAllocation page_sequences(const std::vector<std::int64_t>& sequence_tokens, std::int64_t bytes_per_token,
                               int block_tokens, std::int64_t table_entry_bytes = kDefaultTableEntryBytes);

// The bytes one device needs, split the way capacity is computed: what the
// device holds whatever runs (weights and fixed buffers), what each sequence
// adds, and what each token of each sequence adds.
struct DeviceMemoryLine {
  std::int64_t weight_bytes = 0;            // the weight shard
  std::int64_t fixed_bytes = 0;             // workspaces and buffers independent of batch and context
  std::int64_t sequence_bytes = 0;          // per sequence, besides its tokens (activations, logits)
  std::int64_t kv_bytes_per_token = 0;      // per device, as allocated
  std::int64_t scratch_bytes_per_token = 0; // per token of each sequence, besides its KV (attention scores)
};

// Capacity of one device: budget − weight shard − reserve (− fixed buffers)
// gives the bytes left for the KV cache, and from them kv_tokens_per_device.
// Never negative: when the weights, fixed buffers and reserve leave no room
// for one token, `fits` is false and the capacities are 0.
struct DeviceCapacity {
  bool fits = false;
  std::int64_t budget_bytes = 0;
  std::int64_t reserve_bytes = 0;         // reserve_pct of the budget, rounded down
  std::int64_t kv_budget_bytes = 0;       // budget − reserve − weights − fixed, or 0
  std::int64_t kv_tokens_per_device = 0;  // kv_budget_bytes / kv_bytes_per_token
};

// budget_bytes >= 1, 0 <= reserve_pct < 100, line.kv_bytes_per_token >= 1.
DeviceCapacity device_capacity(const DeviceMemoryLine& line, std::int64_t budget_bytes, double reserve_pct);

// Sequences of `sequence_tokens` tokens each that fit in `capacity` with
// blocks of `block_tokens`: each takes its whole blocks of KV, its scratch per
// token and its per-sequence bytes. With block_tokens = 1 this is exactly the
// largest batch whose device bytes (line) stay within budget − reserve.
std::int64_t admissible_sequences(const DeviceMemoryLine& line, const DeviceCapacity& capacity,
                                  std::int64_t sequence_tokens, int block_tokens);

}  // namespace tpb
