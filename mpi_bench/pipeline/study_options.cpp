#include "mpi_bench/pipeline/study_options.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/parse.hpp"
#include "predictor/verdict.hpp"

namespace tpb {

void add_study_flags(CLI::App* app, StudyFlags& f) {
  add_grid_options(*app, f.grid);
  app->add_option("--sweep-iters", f.sweep_iters, "Timed calls per size in the calibration sweeps")
      ->capture_default_str();
  app->add_option("--seed", f.seed, "Seed of the bootstrap confidence intervals")->capture_default_str();
  add_decision_flags(*app, f.decision);
}

StudyDeclaration parse_study_flags(const StudyFlags& f) {
  StudyDeclaration d;
  static_cast<GridChoice&>(d) = parse_grid_options(f.grid);
  d.sweep_iters = static_cast<int>(parse_integer("--sweep-iters", f.sweep_iters, 1));
  d.bootstrap_seed = static_cast<std::uint64_t>(parse_integer("--seed", f.seed, 0));
  d.decision = parse_decision_flags(f.decision, d.grid.tp);
  return d;
}

std::string default_kill_switch_text() { return fmt::format("{:g}", kDefaultKillSwitchPct); }

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
