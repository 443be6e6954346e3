#pragma once
// The options step, replay, calibrate and run share, declared once: the
// model, the (k, b, c) grid, the decoder backend and the communicator, the
// layer override and the iteration counts. Each command sets its own
// defaults in the struct before declaring (step: --tp 1; run: --tp 1,2), and
// --help shows them. Every value is typed and checked as every rank parses
// it (checked_option.hpp), so a bad value is refused on every rank with one
// line naming it.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "tp_decoder/model_config.hpp"
#include "predictor/registration.hpp"

namespace tpb {

// The options parsed: what every rank runs.
struct GridChoice {
  std::string model_path;
  Grid grid;
  BackendKind backend = BackendKind::cpu;
  CollectiveKind collective = CollectiveKind::mpi;
  int layers = 0;  // 0: the config's count
  int warmup_iters = 3;
  int iters = 20;
  std::optional<MemoryBudget> mem_per_device;  // absent: memory_budget() asks the host or device
  bool dry_run = false;
};

// The options as typed: the choice itself (--model, --tp, --batch, --context,
// --layers, -w, -n, --mem-per-device, --dry-run), but for the backend and the
// communicator, whose defaults depend on the machine: parse_grid_options
// resolves them into the choice.
struct GridOptions {
  GridChoice choice{.model_path = {}, .grid = {.tp = {1}, .batch = {1}, .context = {128}}, .mem_per_device = {}};
  std::optional<BackendKind> backend;        // --backend cpu|cuda; absent: default_backend_kind()
  std::optional<CollectiveKind> collective;  // --collective mpi|nccl; absent: default_collective_kind(backend)
};

// Declares the options on `app` (old spelling --warmup kept as a hidden alias).
void add_grid_options(CLI::App& app, GridOptions& options);

// The parsed options with the backend's and the communicator's defaults resolved.
GridChoice parse_grid_options(const GridOptions& options);

// UsageError naming the flag and value: a k in `tp` the model cannot be
// sharded into (shard_plan_problem), or a context in `contexts` that leaves no
// room for the decoded token within max_position_embeddings.
void check_grid_fits_model(const ModelConfig& config, const std::vector<int>& tp, const std::vector<int>& contexts);

}  // namespace tpb
