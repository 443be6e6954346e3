#pragma once
// `mpi_bench kv`: its options as typed, and the question they ask once parsed
// and checked (every flag's bad value is a UsageError naming it).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "mpi_bench/kv_output.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "predictor/kv_answer.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {

// Typed and checked as every rank parses them (checked_option.hpp).
struct KvCliOptions {
  std::string model;                            // --model CONFIG
  std::vector<int> tp;                          // --tp LIST
  // --context LIST, --block LIST, --reserve-pct P and --table-entry-bytes N, as the question asks them
  KvQuestion question{.lengths = {}, .blocks = {16}, .contexts = {128}, .degrees = {}, .reserve_pct = 10};
  std::string lengths;                          // --lengths FILE|LIST; empty: one sequence per context of the grid
  std::optional<std::int64_t> bytes_per_token;  // --bytes-per-token N; absent: derived from the model
  std::optional<MemoryBudget> mem_per_device;   // --mem-per-device SIZE; absent: what this rank may use
  std::string dtype;                            // --dtype bf16|f32; empty: the model's torch_dtype, else bf16
  std::optional<BackendKind> backend;           // --backend cpu|cuda: whose buffers; absent: cuda when a GPU is visible
  std::optional<CollectiveKind> collective;     // --collective mpi|nccl|oneshot; absent: the backend's default
  std::string output;                           // -o FILE.h5
  bool overwrite = false;
  bool json = false;
};

struct KvCliPlan {
  ModelConfig config;
  std::vector<int> tp;
  KvQuestion question;  // all but the budget and the degrees, which need the rank map and the ledger
  ElementType dtype = ElementType::bf16;
  BackendKind backend = BackendKind::cpu;
  CollectiveKind collective = CollectiveKind::mpi;  // whose communication buffers a TP group holds
  KvPrintLabels labels;  // all but labels.file.budget_source, which needs the rank map
};

void add_kv_cli_options(CLI::App& app, KvCliOptions& options);

// Everything but the budget (which needs the rank map).
KvCliPlan parse_kv_cli(const KvCliOptions& options);

}  // namespace tpb
