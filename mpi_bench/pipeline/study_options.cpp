#include "mpi_bench/pipeline/study_options.hpp"

#include <fmt/format.h>

#include "common/cuda_info.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"
#include "predictor/kill_switch.hpp"

namespace tpb {

void add_study_flags(CLI::App* app, StudyFlags& f) {
  app->add_option("--model", f.model, "Model config (Hugging Face config.json), e.g. tp_decoder/configs/...")
      ->required();
  app->add_option("--tp", f.tp, "TP degrees to study, each dividing the number of ranks (default 1,2)");
  app->add_option("--batch", f.batch, "Batch sizes b of the declared grid (default 1)");
  app->add_option("--context", f.context, "Context lengths c of the declared grid (default 128)");
  app->add_option("--backend", f.backend, "Decoder backend: cpu or cuda (default: cuda when a GPU is visible)");
  app->add_option("--layers", f.layers, "Run N layers instead of the config's count (0: all)");
  app->add_option("-w,--warmup_iters", f.warmup, "Untimed steps before each point (default 3)");
  app->add_option("-n,--iters", f.iters, "Timed steps per point (default 20)");
  app->add_option("--sweep-iters", f.sweep_iters, "Timed calls per size in the calibration sweeps (default 20)");
  app->add_option("--seed", f.seed, "Seed of the bootstrap confidence intervals (default 20240)");
}

StudyDeclaration parse_study_flags(const StudyFlags& f) {
  StudyDeclaration d;
  d.model_path = f.model;
  d.grid = {parse_int_list("--tp", f.tp, 1), parse_int_list("--batch", f.batch, 1),
            parse_int_list("--context", f.context, 0)};
  if (f.backend.empty()) {
    const auto cuda = query_cuda_info();
    d.backend = cuda.device_count > 0 ? "cuda" : "cpu";
  } else if (f.backend == "cpu" || f.backend == "cuda") {
    d.backend = f.backend;
  } else {
    throw UsageError(fmt::format("--backend: '{}' is not a decoder backend (valid: cpu, cuda)", f.backend));
  }
  d.layers = static_cast<int>(parse_integer("--layers", f.layers, 0));
  d.warmup_iters = static_cast<int>(parse_integer("--warmup_iters", f.warmup, 0));
  d.iters = static_cast<int>(parse_integer("--iters", f.iters, 2));
  d.sweep_iters = static_cast<int>(parse_integer("--sweep-iters", f.sweep_iters, 1));
  d.bootstrap_seed = static_cast<std::uint64_t>(parse_integer("--seed", f.seed, 0));
  return d;
}

double parse_kill_switch(const std::string& text) {
  double value = 0;
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty())
    throw UsageError(fmt::format("--kill-switch: '{}' is not a number (a MAPE threshold in percent, e.g. 15)", text));
  kill_switch_table(value);  // range check, same message as everywhere
  return value;
}

}  // namespace tpb
