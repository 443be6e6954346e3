#pragma once
// The whole answer of `mpi_bench kv`, from the ledger's pieces: the paged
// allocation of the declared request lengths for each block size, and for
// each TP degree k the per-device KV bytes, the capacity under the budget and
// the sequences admissible at each context for each block size.
#include <cstdint>
#include <vector>

#include "predictor/kv_ledger.hpp"

namespace tpb {

// One TP degree and what its devices hold besides the KV cache (from the
// memory estimator at that k).
struct KvDegreeInput {
  int k = 1;
  DeviceMemoryLine line;  // its kv_bytes_per_token is replaced by the ledger's per-device figure
};

struct KvQuestion {
  std::int64_t logical_kv_bytes_per_token = 0;  // derived from the model, or stated (--bytes-per-token)
  int kv_heads = 0;                             // num_key_value_heads
  std::vector<std::int64_t> lengths;            // declared request lengths (tokens per sequence)
  std::vector<int> blocks;                      // block_tokens to compare
  std::vector<int> contexts;                    // a sequence at context c holds c + 1 tokens
  std::vector<KvDegreeInput> degrees;
  std::int64_t budget_bytes = 0;                // per device
  double reserve_pct = 0;
  std::int64_t table_entry_bytes = kDefaultTableEntryBytes;
};

struct KvDegreeAnswer {
  KvDeviceShare share;
  DeviceMemoryLine line;
  DeviceCapacity capacity;
  // [context index][block index]: sequences of c + 1 tokens that fit one device.
  std::vector<std::vector<std::int64_t>> admissible_sequences;
};

struct KvAnswer {
  KvQuestion question;
  std::vector<PagedAllocation> paged;  // per block size, at the logical bytes per token
  std::vector<KvDegreeAnswer> degrees;
};

KvAnswer answer_kv_question(const KvQuestion& question);

}  // namespace tpb
