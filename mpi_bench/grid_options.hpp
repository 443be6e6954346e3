#pragma once
// The options step, replay, calibrate and run share, declared once: the
// model, the (k, b, c) grid, the decoder backend and the communicator, the
// layer override and the iteration counts. Each command sets its own
// defaults in the struct before declaring (step: --tp 1; run: --tp 1,2), and
// --help shows them. Kept as typed until every rank parses them, so that a
// bad value is refused on every rank with one line naming it.
#include <CLI/CLI.hpp>

#include <string>

#include "common/choices.hpp"
#include "predictor/registration.hpp"

namespace tpb {

struct GridOptions {
  std::string model;            // --model CONFIG (Hugging Face config.json)
  std::string tp = "1";         // --tp LIST
  std::string batch = "1";      // --batch LIST
  std::string context = "128";  // --context LIST
  std::string backend;          // --backend cpu|cuda; empty: default_backend_kind()
  std::string collective;       // --collective mpi|nccl; empty: default_collective_kind(backend)
  std::string layers = "0";     // --layers N; 0: the config's count
  std::string warmup = "3";     // -w/--warmup_iters
  std::string iters = "20";     // -n/--iters
  std::string mem_per_device;   // --mem-per-device SIZE; empty: what the host or device has free
  bool dry_run = false;         // --dry-run: print the grid and the memory check, allocate nothing
  int min_iters = 1;            // not a flag: the fewest timed steps the command can use
};

// The options parsed: what every rank runs.
struct GridChoice {
  std::string model_path;
  Grid grid;
  BackendKind backend = BackendKind::cpu;
  CollectiveKind collective = CollectiveKind::mpi;
  int layers = 0;  // 0: the config's count
  int warmup_iters = 3;
  int iters = 20;
  std::string mem_per_device;  // as typed: parsed by memory_budget()
  bool dry_run = false;
};

// Declares the options on `app` (old spelling --warmup kept as a hidden alias).
void add_grid_options(CLI::App& app, GridOptions& options);

// UsageError naming the flag and the value.
GridChoice parse_grid_options(const GridOptions& options);

}  // namespace tpb
