#include "mpi_bench/step_cli.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/cuda_info.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {
namespace {

std::string default_backend() {
  const std::vector<std::string> names = backend_names();
  const bool cuda_built = std::find(names.begin(), names.end(), "cuda") != names.end();
  return cuda_built && query_cuda_info().device_count > 0 ? "cuda" : "cpu";
}

}  // namespace

void add_step_cli_options(CLI::App& app, StepCliOptions& o) {
  app.add_option("--model", o.model, "Hugging Face config.json (tp_decoder/configs/*.json)")->required();
  app.add_option("--tp", o.tp, "TP degrees k, e.g. 1,2,4")->capture_default_str();
  app.add_option("--batch", o.batch, "Batch sizes b (sequences decoded together)")->capture_default_str();
  app.add_option("--context", o.context, "Context lengths c (KV history per sequence)")->capture_default_str();
  app.add_option("--backend", o.backend, "cpu or cuda (default: cuda when a GPU is visible, else cpu)");
  app.add_option("--layers", o.layers, "Run this many layers instead of the config's (recorded)");
  app.add_option("-w,--warmup", o.warmup, "Untimed steps per point")->capture_default_str();
  app.add_option("-n,--iters", o.iters, "Timed steps per point")->capture_default_str();
  app.add_option("-o,--output", o.output, "Results file (.h5)");
  app.add_flag("--overwrite", o.overwrite, "Replace an existing results file");
}

StepCliPlan parse_step_cli(const StepCliOptions& o) {
  StepCliPlan plan;
  plan.tp = parse_int_list("--tp", o.tp, 1);
  plan.batch = parse_int_list("--batch", o.batch, 1);
  plan.context = parse_int_list("--context", o.context, 0);
  plan.options.warmup = static_cast<int>(parse_integer("-w/--warmup", o.warmup, 0));
  plan.options.iters = static_cast<int>(parse_integer("-n/--iters", o.iters, 1));
  plan.backend = o.backend.empty() ? default_backend() : o.backend;
  const std::vector<std::string> names = backend_names();
  if (std::find(names.begin(), names.end(), plan.backend) == names.end()) {
    if (plan.backend == "cuda") throw UsageError("--backend cuda: this build has no CUDA support");
    throw UsageError(fmt::format("--backend: invalid value '{}' (expected {})", plan.backend, fmt::join(names, " or ")));
  }

  plan.config = load_model_config(o.model);
  if (!o.layers.empty()) plan.config = with_layers(plan.config, static_cast<int>(parse_integer("--layers", o.layers, 1)));
  for (int k : plan.tp)
    if (const std::string problem = shard_plan_problem(plan.config, k); !problem.empty()) throw UsageError(problem);
  for (int c : plan.context)
    if (c + 1 > plan.config.max_position_embeddings)
      throw UsageError(fmt::format("--context: {} leaves no room for the decoded token within max_position_embeddings "
                                   "({}) of {}",
                                   c, plan.config.max_position_embeddings, plan.config.name));
  return plan;
}

}  // namespace tpb
