#pragma once
// What `mpi_bench step` and `mpi_bench replay` share beyond the grid and
// timing options (grid_options.hpp): the output file, --graph and --profile,
// and the checks of the grid against the model.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "mpi_bench/grid_options.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/step_runner.hpp"

namespace tpb {

// Typed and checked as every rank parses them; the checks against the model
// run in parse_step_cli on every rank before anything runs.
struct StepCliOptions {
  GridOptions grid;    // --model, --tp, --batch, --context, --backend, --collective, --layers, -w, -n
  std::string output;  // -o FILE.h5; empty: print only
  bool overwrite = false;
  StepOptions step;  // --graph (cuda backend only), --profile, and the command's own (step: --no-comm, --check)
};

struct StepCliPlan : GridChoice {
  ModelConfig config;   // with --layers applied
  StepOptions options;  // as given, with the grid's warmup and iters
};

void add_step_cli_options(CLI::App& app, StepCliOptions& options);

// UsageError naming the flag and value: lists, the config file and its
// fields, every k against the model's heads/intermediate/vocabulary, every
// context against max_position_embeddings, the backend name, --graph without
// the cuda backend.
StepCliPlan parse_step_cli(const StepCliOptions& options);

}  // namespace tpb
