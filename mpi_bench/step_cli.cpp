#include "mpi_bench/step_cli.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpb {

void add_step_cli_options(CLI::App& app, StepCliOptions& o) {
  add_grid_options(app, o.grid);
  app.add_option("-o,--output", o.output, "Results file (.h5)");
  app.add_flag("--overwrite", o.overwrite, "Replace an existing results file");
  app.add_flag("--graph", o.step.graph, "Capture the step once as a CUDA graph and replay it (cuda backend)");
  app.add_flag("--profile", o.step.profile, "Time every operation with events on the cuda backend (perturbs the step)");
}

StepCliPlan parse_step_cli(const StepCliOptions& o) {
  StepCliPlan plan;
  static_cast<GridChoice&>(plan) = parse_grid_options(o.grid);
  plan.options = o.step;
  plan.options.warmup = plan.warmup_iters;
  plan.options.iters = plan.iters;
  if (o.step.graph && plan.backend != BackendKind::cuda)
    throw UsageError(fmt::format("--graph: needs --backend cuda (the {} backend has no step graphs)",
                                 to_string(plan.backend)));

  plan.config = load_model_config(plan.model_path);
  if (plan.layers > 0) plan.config = with_layers(plan.config, plan.layers);
  check_grid_fits_model(plan.config, plan.grid.tp, plan.grid.context);
  return plan;
}

}  // namespace tpb
