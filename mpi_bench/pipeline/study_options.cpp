#include "mpi_bench/pipeline/study_options.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/parse.hpp"
#include "mpi_bench/checked_option.hpp"
#include "predictor/study_design.hpp"
#include "predictor/verdict.hpp"

namespace tpb {

void add_study_flags(CLI::App* app, StudyFlags& f) {
  add_grid_options(*app, f.grid);
  add_count_option(*app, "--sweep-iters", "--sweep-iters", f.sweep_iters, 1,
                   "Timed calls per size in the calibration sweeps");
  add_count_option(*app, "--calibration-rounds", "--calibration-rounds", f.calibration_rounds, 1,
                   "Randomized rounds of the calibration's shard replays and TP-1 --no-comm (their spread plans the "
                   "measurement's rounds)");
  add_checked_option(*app, "--seed", f.seed, "Seed of the bootstrap and of the rounds' visiting order (sealed)",
                     [](const std::string& text) { return parse_integer("--seed", text, 0); })
      ->default_str(default_text(f.seed));
  add_checked_option(*app, "--rounds", f.rounds,
                     "N measurement rounds, all of them run and judged once at the end (sealed; blocks of 5 "
                     "rounds make the rule's intervals)",
                     [](const std::string& text) {
                       parse_rounds(text);  // refused as typed, before any rank starts
                       return text;
                     })
      ->default_str(f.rounds);
  add_checked_option(*app, "--time-budget", f.time_budget_s,
                     "Seconds of measurement rounds: a guard that ends the study early, and says so (0: none; "
                     "sealed)",
                     [](const std::string& text) { return parse_integer("--time-budget", text, 0); })
      ->default_str(default_text(f.time_budget_s));
  add_decision_flags(*app, f.decision);
}

StudyDeclaration parse_study_flags(const StudyFlags& f) {
  StudyDeclaration d;
  static_cast<GridChoice&>(d) = parse_grid_options(f.grid);
  d.sweep_iters = f.sweep_iters;
  d.calibration_rounds = f.calibration_rounds;
  d.bootstrap_seed = static_cast<std::uint64_t>(f.seed);
  d.rounds = parse_rounds(f.rounds);
  d.time_budget_s = static_cast<double>(f.time_budget_s);
  d.decision = parse_decision_flags(f.decision, d.grid.tp);
  return d;
}

DesignClaims parse_design_claims(const DesignClaimFlags& flags) {
  DesignClaims claims;
  if (!flags.kill_switch.empty()) claims.kill_switch_pct = parse_kill_switch(flags.kill_switch);
  if (!flags.rounds.empty()) claims.rounds = parse_rounds(flags.rounds);
  if (!flags.time_budget.empty())
    claims.time_budget_s = static_cast<double>(parse_integer("--time-budget", flags.time_budget, 0));
  if (!flags.seed.empty()) claims.seed = static_cast<std::uint64_t>(parse_integer("--seed", flags.seed, 0));
  if (!flags.alpha.empty()) {
    const std::optional<double> alpha = whole_number(flags.alpha);
    if (!alpha || !(*alpha > 0 && *alpha < 1))
      throw UsageError(fmt::format("--alpha: '{}' is not a probability in (0, 1)", flags.alpha));
    claims.family_alpha = *alpha;
  }
  return claims;
}

void add_design_claim_flags(CLI::App& app, DesignClaimFlags& flags) {
  app.add_option("--kill-switch", flags.kill_switch,
                 "Refuse unless this equals the registered threshold K in % (fixed at registration)");
  app.add_option("--rounds", flags.rounds, "Refuse unless this equals the registered N rounds");
  app.add_option("--time-budget", flags.time_budget, "Refuse unless this equals the registered time budget (seconds)");
  app.add_option("--seed", flags.seed, "Refuse unless this equals the registered seed");
  app.add_option("--alpha", flags.alpha, "Refuse unless this equals the registered family-wise alpha");
}

void add_outside_form_option(CLI::App& app, std::vector<std::string>& name_equals_files) {
  app.add_option("--form", name_equals_files,
                 "NAME=FILE: also register the outside form NAME, FILE's t_step per grid cell in µs, as CSV "
                 "k,batch,context,t_step_us[,compute_us,collective_us,host_us] or JSON {\"predictions\": [...]}; "
                 "sealed with its bytes; repeatable (docs/STUDY.md, \"Outside forms\")")
      ->allow_extra_args(false);  // one NAME=FILE per --form
}

std::string default_kill_switch_text() { return fmt::format("{:g}", kDefaultKillSwitchPct); }

double parse_kill_switch(const std::string& text) {
  const std::optional<double> value = whole_number(text);
  if (!value)
    throw UsageError(fmt::format("--kill-switch: '{}' is not a number (a MAPE threshold in percent, e.g. 15)", text));
  kill_switch_table(*value);  // range check, same message as everywhere
  return *value;
}

}  // namespace tpb
