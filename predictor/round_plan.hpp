#pragma once
// Rounds planned before measuring: a power analysis from the calibration's
// own spread, sealed with the rule. Calibration never runs a TP-k step, so
// the plan reads a proxy: per grid cell, the standard deviation over
// calibration rounds of ln t_replay(k) − ln t_compute(1) (two conditions
// measured a few visits apart, as a TP-k step and its anchors are), times a
// sealed inflation factor for what a TP-k step adds (a second rank, its
// collectives). From it, the rounds each (form, k) needs for an error at the
// effect of interest (K/2 unless declared) to come out HOLDS with the sealed
// power at the last look's α.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tpb {

inline constexpr double kPlanInflation = 1.5;  // proxy → TP-k spread; see docs/STATISTICS.md
// 95 %: a study rerun must give the same verdicts, and at 80 % a form whose
// error sits at K/2 stays open in one study of five; 95 % costs about 1.5×
// the rounds (z 1.64 for 0.84 beside z_{1−α/2} ≈ 2.6), which the quick
// start's budget holds.
inline constexpr double kPlanPower = 0.95;
// The median's standard error over the mean's, for normal rounds (√(π/2)).
inline constexpr double kMedianEfficiency = 1.2533141373155003;

struct RoundPlanInputs {
  std::vector<double> cell_log_sd;  // the proxy per grid cell, before inflation (> 0)
  double kill_switch_pct = 15.0;
  double effect_pct = 7.5;          // the error the plan must decide (below the kill switch)
  double family_alpha = 0.05;
  int judged_cells = 1;             // the α family
  int min_rounds = 10;              // --rounds MIN:MAX
  int max_rounds = 20;
  double seconds_per_round = 0;     // estimated; 0: unknown
  double time_budget_s = 0;         // 0: none
  double power = kPlanPower;
};

struct RoundPlan {
  double inflation = kPlanInflation;
  double power = kPlanPower;
  double effect_pct = 0;
  double spread_log_sd = 0;       // inflated σ of the form's error: √(Σ σ_c²) / cells
  int needed_rounds = 0;          // uncapped; −1 beyond a million
  int planned_rounds = 0;         // sealed N: needed, clamped to [MIN, MAX]
  double seconds_per_round = 0;
  int budget_rounds = 0;          // rounds the time budget holds; 0 without a budget
  // The smallest kill switch whose half the budget's rounds (or N) can
  // decide; 0 when N fits the budget.
  double resolvable_kill_switch_pct = 0;
  bool exceeds_budget() const { return budget_rounds > 0 && planned_rounds > budget_rounds; }
};

// The rounds for the mean over cells of median errors to clear `kill` from
// `effect` with `power` at the α of the last of the checkpoints MIN, 2·MIN, …, n.
int rounds_for_effect(const RoundPlanInputs& in, double spread_log_sd);

// UsageError when the effect is not in (0, kill switch) or a σ is not positive.
RoundPlan plan_rounds(const RoundPlanInputs& inputs);

nlohmann::ordered_json round_plan_json(const RoundPlan& plan);
RoundPlan parse_round_plan(const nlohmann::ordered_json& section);

// One line for the console and the report: the planned rounds, or that the
// budget holds fewer and the kill switch it can resolve.
std::string round_plan_line(const RoundPlan& plan, double kill_switch_pct);

}  // namespace tpb
