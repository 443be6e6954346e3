#include "mpi_bench/pipeline/study_options.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/parse.hpp"
#include "predictor/study_design.hpp"
#include "predictor/verdict.hpp"

namespace tpb {

void add_study_flags(CLI::App* app, StudyFlags& f) {
  add_grid_options(*app, f.grid);
  app->add_option("--sweep-iters", f.sweep_iters, "Timed calls per size in the calibration sweeps")
      ->capture_default_str();
  app->add_option("--seed", f.seed, "Seed of the bootstrap and of the rounds' visiting order (sealed)")
      ->capture_default_str();
  app->add_option("--rounds", f.rounds,
                  "MIN:MAX measurement rounds: checkpoints at MIN, 2*MIN, ... and MAX (sealed)")
      ->capture_default_str();
  app->add_option("--time-budget", f.time_budget,
                  "Seconds of measurement rounds: stop at the last checkpoint that fits (0: none; sealed)")
      ->capture_default_str();
  add_decision_flags(*app, f.decision);
}

StudyDeclaration parse_study_flags(const StudyFlags& f) {
  StudyDeclaration d;
  static_cast<GridChoice&>(d) = parse_grid_options(f.grid);
  d.sweep_iters = static_cast<int>(parse_integer("--sweep-iters", f.sweep_iters, 1));
  d.bootstrap_seed = static_cast<std::uint64_t>(parse_integer("--seed", f.seed, 0));
  parse_rounds_range(f.rounds, &d.min_rounds, &d.max_rounds);
  d.time_budget_s = static_cast<double>(parse_integer("--time-budget", f.time_budget, 0));
  d.decision = parse_decision_flags(f.decision, d.grid.tp);
  return d;
}

DesignClaims parse_design_claims(const DesignClaimFlags& flags) {
  DesignClaims claims;
  if (!flags.kill_switch.empty()) claims.kill_switch_pct = parse_kill_switch(flags.kill_switch);
  if (!flags.rounds.empty()) {
    int low = 0, high = 0;
    parse_rounds_range(flags.rounds, &low, &high);
    claims.min_rounds = low;
    claims.max_rounds = high;
  }
  if (!flags.time_budget.empty())
    claims.time_budget_s = static_cast<double>(parse_integer("--time-budget", flags.time_budget, 0));
  if (!flags.seed.empty()) claims.seed = static_cast<std::uint64_t>(parse_integer("--seed", flags.seed, 0));
  if (!flags.alpha.empty()) {
    std::size_t used = 0;
    double value = -1;
    try {
      value = std::stod(flags.alpha, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != flags.alpha.size() || !(value > 0 && value < 1))
      throw UsageError(fmt::format("--alpha: '{}' is not a probability in (0, 1)", flags.alpha));
    claims.family_alpha = value;
  }
  return claims;
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
