#include "predictor/kv_ledger.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"

namespace tpb {
namespace {

// Products and sums of byte counts, refused rather than wrapped. Only input
// can make them this large (a lengths file holds any number of any lengths),
// so the refusal is a usage error.
std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    throw UsageError(fmt::format("kv ledger: {} x {} bytes overflows 64 bits (lengths or bytes per token too large)", a, b));
  return out;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    throw UsageError(fmt::format("kv ledger: {} + {} bytes overflows 64 bits (lengths or bytes per token too large)", a, b));
  return out;
}

// Whole blocks holding `tokens`: ceil(tokens / block_tokens), without overflow.
std::int64_t blocks_for(std::int64_t tokens, int block_tokens) {
  return tokens / block_tokens + (tokens % block_tokens != 0 ? 1 : 0);
}

}  // namespace

std::int64_t kv_bytes_per_token(const KvCacheShape& shape) {
  TPB_CHECK(shape.layers >= 1 && shape.kv_heads >= 1 && shape.head_dim >= 1 && shape.bytes_per_value >= 1,
            fmt::format("kv_bytes_per_token: layers {}, kv_heads {}, head_dim {}, bytes {} must all be >= 1",
                        shape.layers, shape.kv_heads, shape.head_dim, shape.bytes_per_value));
  return std::int64_t{shape.layers} * 2 * shape.kv_heads * shape.head_dim * shape.bytes_per_value;
}

KvDeviceShare kv_device_share(std::int64_t logical_bytes_per_token, int kv_heads, int k) {
  TPB_CHECK(logical_bytes_per_token >= 1 && kv_heads >= 1 && k >= 1,
            fmt::format("kv_device_share: bytes per token {}, kv_heads {}, k {} must all be >= 1",
                        logical_bytes_per_token, kv_heads, k));
  TPB_CHECK(kv_heads % k == 0 || k % kv_heads == 0,
            fmt::format("kv_device_share: k = {} neither divides {} KV heads nor is a multiple of them", k, kv_heads));
  TPB_CHECK(logical_bytes_per_token % kv_heads == 0,
            fmt::format("kv_device_share: {} B per token does not split evenly over {} KV heads",
                        logical_bytes_per_token, kv_heads));
  KvDeviceShare share;
  share.k = k;
  share.kv_heads_per_device = std::max(1, kv_heads / k);
  // Heads held in the whole group over heads in the model.
  share.kv_replication = k * share.kv_heads_per_device / kv_heads;
  share.kv_bytes_per_token = logical_bytes_per_token / kv_heads * share.kv_heads_per_device;
  return share;
}

PagedAllocation page_sequences(const std::vector<std::int64_t>& sequence_tokens, std::int64_t bytes_per_token,
                               int block_tokens, std::int64_t table_entry_bytes) {
  TPB_CHECK(block_tokens >= 1 && bytes_per_token >= 1 && table_entry_bytes >= 1,
            fmt::format("page_sequences: block_tokens {}, bytes per token {}, entry bytes {} must all be >= 1",
                        block_tokens, bytes_per_token, table_entry_bytes));
  PagedAllocation paged;
  paged.block_tokens = block_tokens;
  paged.bytes_per_token = bytes_per_token;
  paged.table_entry_bytes = table_entry_bytes;
  for (const std::int64_t tokens : sequence_tokens) {
    TPB_CHECK(tokens >= 0, fmt::format("page_sequences: a sequence of {} tokens", tokens));
    PagedSequence s;
    s.tokens = tokens;
    s.table_entries = blocks_for(tokens, block_tokens);
    s.payload_bytes = checked_mul(tokens, bytes_per_token);
    s.allocated_bytes = checked_mul(checked_mul(s.table_entries, block_tokens), bytes_per_token);
    s.tail_waste_bytes = s.allocated_bytes - s.payload_bytes;
    paged.payload_bytes = checked_add(paged.payload_bytes, s.payload_bytes);
    paged.allocated_bytes = checked_add(paged.allocated_bytes, s.allocated_bytes);
    paged.tail_waste_bytes += s.tail_waste_bytes;  // at most allocated_bytes
    paged.table_entries += s.table_entries;
    paged.sequences.push_back(s);
  }
  paged.metadata_bytes = checked_mul(paged.table_entries, table_entry_bytes);
  return paged;
}

DeviceCapacity device_capacity(const DeviceMemoryLine& line, std::int64_t budget_bytes, double reserve_pct) {
  TPB_CHECK(budget_bytes >= 1 && reserve_pct >= 0 && reserve_pct < 100 && line.kv_bytes_per_token >= 1,
            fmt::format("device_capacity: budget {} B, reserve {} %, {} KV B per token", budget_bytes, reserve_pct,
                        line.kv_bytes_per_token));
  DeviceCapacity capacity;
  capacity.budget_bytes = budget_bytes;
  capacity.reserve_bytes =
      static_cast<std::int64_t>(std::floor(static_cast<double>(budget_bytes) * reserve_pct / 100.0));
  const std::int64_t left = budget_bytes - capacity.reserve_bytes - line.weight_bytes - line.fixed_bytes;
  if (left < line.kv_bytes_per_token) return capacity;  // not one token: does not fit, capacities stay 0
  capacity.fits = true;
  capacity.kv_budget_bytes = left;
  capacity.kv_tokens_per_device = left / line.kv_bytes_per_token;
  return capacity;
}

std::int64_t admissible_sequences(const DeviceMemoryLine& line, const DeviceCapacity& capacity,
                                  std::int64_t sequence_tokens, int block_tokens) {
  TPB_CHECK(sequence_tokens >= 1 && block_tokens >= 1,
            fmt::format("admissible_sequences: {} tokens per sequence, blocks of {}", sequence_tokens, block_tokens));
  if (!capacity.fits) return 0;
  const std::int64_t blocks = blocks_for(sequence_tokens, block_tokens);
  const std::int64_t per_sequence =
      checked_add(checked_add(checked_mul(checked_mul(blocks, block_tokens), line.kv_bytes_per_token),
                              checked_mul(sequence_tokens, line.scratch_bytes_per_token)),
                  line.sequence_bytes);
  return capacity.kv_budget_bytes / per_sequence;
}

}  // namespace tpb
