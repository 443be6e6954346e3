#pragma once
// The KV ledger's part of a results file, under /kv:
//   /kv                      attributes: model, dtype, dtype_source, kv_bytes_per_token (logical), kv_heads,
//                            table_entry_bytes, budget_bytes, budget_source, reserve_pct, lengths_source,
//                            backend and collective (whose buffers the other fixed bytes count)
//   /kv/lengths              the declared request lengths (tokens)
//   /kv/contexts             the context grid; a sequence at context c holds c + 1 tokens
//   /kv/block_tokens         the block sizes compared
//   /kv/blocks/b{B}          attributes block_tokens, payload_bytes, allocated_bytes, tail_waste_bytes,
//                            table_entries, metadata_bytes; per sequence: tokens, payload_bytes,
//                            allocated_bytes, tail_waste_bytes, table_entries
//   /kv/tp/k{K}              attributes k, kv_heads_per_device, kv_replication, kv_bytes_per_token (per device),
//                            weight_bytes_per_device, fixed_bytes, sequence_bytes, scratch_bytes_per_token,
//                            reserve_bytes, fits; kv_budget_bytes and kv_tokens_per_device only when fits
//   /kv/tp/k{K}/admissible_sequences   contexts × block sizes, only when fits
// Written by rank 0 once the whole answer is computed.
#include <string>

#include "predictor/kv_answer.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// What the numbers are about, in words.
struct KvLabels {
  std::string model;           // config name
  std::string dtype;           // "bf16" or "f32"
  std::string dtype_source;    // "the model's torch_dtype bfloat16", "--dtype f32"
  std::string budget_source;   // "--mem-per-device 120G", "CPU: MemAvailable ... / 2 ranks on this node"
  std::string lengths_source;  // "--lengths FILE", "--lengths 1,15,16", "the --context grid"
  std::string backend;         // "cpu" or "cuda": whose workspaces
  std::string collective;      // "mpi", "nccl" or "oneshot": whose communication buffers
};

void write_kv_answer(H5File& file, const KvAnswer& answer, const KvLabels& labels);


}  // namespace tpb
