#pragma once
// `mpi_bench kv`: its options as typed, and the question they ask once parsed
// and checked (every flag's bad value is a UsageError naming it).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {

// Typed and checked as every rank parses them (checked_option.hpp).
struct KvCliOptions {
  std::string model;                            // --model CONFIG
  std::vector<int> tp;                          // --tp LIST
  std::vector<int> context{128};                // --context LIST
  std::string lengths;                          // --lengths FILE|LIST; empty: one sequence per context of the grid
  std::vector<int> block{16};                   // --block LIST
  std::optional<std::int64_t> bytes_per_token;  // --bytes-per-token N; absent: derived from the model
  std::optional<MemoryBudget> mem_per_device;   // --mem-per-device SIZE; absent: what this rank may use
  double reserve_pct = 10;                      // --reserve-pct P
  std::string dtype;                            // --dtype bf16|f32; empty: the model's torch_dtype, else bf16
  std::optional<BackendKind> backend;           // --backend cpu|cuda: whose buffers; absent: cuda when a GPU is visible
  std::optional<CollectiveKind> collective;     // --collective mpi|nccl|oneshot; absent: the backend's default
  std::int64_t table_entry_bytes = 4;           // --table-entry-bytes N
  std::string output;                           // -o FILE.h5
  bool overwrite = false;
  bool json = false;
};

struct KvCliPlan {
  ModelConfig config;
  std::vector<int> tp;
  std::vector<int> contexts;
  std::vector<std::int64_t> lengths;
  std::string lengths_source;        // "--lengths FILE", "--lengths LIST", "the --context grid (c + 1 tokens each)"
  std::vector<int> blocks;
  std::int64_t bytes_per_token = 0;  // logical: derived, or --bytes-per-token
  std::string bytes_per_token_source;
  double reserve_pct = 10;
  ElementType dtype = ElementType::bf16;
  std::string dtype_source;
  BackendKind backend = BackendKind::cpu;
  CollectiveKind collective = CollectiveKind::mpi;  // whose communication buffers a TP group holds
  std::int64_t table_entry_bytes = 4;
};

void add_kv_cli_options(CLI::App& app, KvCliOptions& options);

// Everything but the budget (which needs the rank map).
KvCliPlan parse_kv_cli(const KvCliOptions& options);

// --lengths: a LIST when the text holds only digits, commas and minus signs
// ("1,15,16"), otherwise a FILE of one whole number per line, where '#'
// starts a comment and blank lines are skipped. Each length is a whole number
// of tokens from 0 to 2^31 − 1. UsageError naming the flag, the file and line,
// and the bad value; a file holding no length is refused too.
std::vector<std::int64_t> parse_lengths(const std::string& text);

// The model's torch_dtype as the ledger's dtype: bfloat16 and float16 (both
// 2 bytes) as bf16, float32 as f32; absent or anything else: bf16.
ElementType dtype_of_model(const ModelConfig& config, std::string* source);

}  // namespace tpb
