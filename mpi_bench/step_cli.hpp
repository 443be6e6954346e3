#pragma once
// The options `mpi_bench step` and `mpi_bench replay` share: the model, the
// (k, b, c) grid, the backend, the layer override, iterations and the output.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "tp_decoder/model_config.hpp"
#include "tp_decoder/step_runner.hpp"

namespace tpb {

// As typed; parsed and checked on every rank before anything runs.
struct StepCliOptions {
  std::string model;           // --model CONFIG (Hugging Face config.json)
  std::string tp = "1";        // --tp LIST
  std::string batch = "1";     // --batch LIST
  std::string context = "128"; // --context LIST
  std::string backend;         // --backend cpu|cuda; empty: cuda when a GPU is visible, else cpu
  std::string layers;          // --layers N; empty: as in the config
  std::string warmup = "3";    // -w
  std::string iters = "20";    // -n
  std::string output;          // -o FILE.h5; empty: print only
  bool overwrite = false;
};

struct StepCliPlan {
  ModelConfig config;  // with --layers applied
  std::vector<int> tp;
  std::vector<int> batch;
  std::vector<int> context;
  std::string backend;
  StepOptions options;  // warmup and iters set; the rest is the command's
};

void add_step_cli_options(CLI::App& app, StepCliOptions& options);

// UsageError naming the flag and value: lists, the config file and its
// fields, every k against the model's heads/intermediate/vocabulary, every
// context against max_position_embeddings, the backend name.
StepCliPlan parse_step_cli(const StepCliOptions& options);

}  // namespace tpb
