#pragma once
// Rule version 6, the only rule: per cell (form, k, batch, context) the paired
// log-ratios d_r = ln(measured t_step / prediction on the same round's
// anchors), one per round in execution order.
//   margin      δ = ln(1 + K), symmetric in logs;
//   estimate    the median of d over rounds (the typical step), reported as
//               exp(median) − 1, with the mean ratio − 1 beside it;
//   intervals   the sign test's distribution-free interval for a median, on
//               the medians of consecutive blocks of `block_rounds` rounds
//               (odd, so a block median's median is the rounds' median; blocks
//               keep the interval's coverage when adjacent rounds correlate);
//   HOLDS       the 1 − 2α interval lies inside (−δ, δ): two one-sided tests
//               at α, so no split;
//   FALSIFIED   the 1 − α/m interval lies wholly outside [−δ, δ], m the form's
//               cells over every k (each form is its own family);
//   INCONCLUSIVE otherwise, with its reason.
// A form at k HOLDS when every cell holds and the A/A holds, is FALSIFIED when
// some cell is, and is INCONCLUSIVE otherwise. MAPE over cells and the worst
// cell are descriptive. docs/STATISTICS.md states the rule in full.
#include <span>
#include <string_view>
#include <vector>

#include "predictor/round_interval.hpp"

namespace tpb {

enum class Outcome { holds, falsified, inconclusive, not_applicable };
std::string_view to_string(Outcome outcome);  // "HOLDS", "FALSIFIED", "INCONCLUSIVE", "NOT_APPLICABLE"

enum class InconclusiveReason {
  none,              // the outcome is not INCONCLUSIVE
  straddles_margin,  // an interval reaches across ±δ
  too_few_rounds,    // fewer blocks than the interval needs at its level
  aa_not_held,       // every cell holds, but the A/A control does not: no HOLDS
};
std::string_view to_string(InconclusiveReason reason);  // "", "straddles_margin", ...

inline constexpr int kDecisionRuleVersion = 6;
inline constexpr int kDefaultBlockRounds = 5;

struct DecisionRule {
  int version = kDecisionRuleVersion;
  double kill_switch_pct = 15.0;           // K, in percent
  double family_alpha = 0.05;              // α
  int block_rounds = kDefaultBlockRounds;  // rounds per block median
  double margin_log() const;               // δ = ln(1 + K/100)
};

// UsageError naming the bad value: a version other than 6, K outside
// (0, 1000] %, α outside (0, 0.5), or a block length that is not a positive odd number.
void validate_decision_rule(const DecisionRule& rule);

// The medians of consecutive blocks of `block_rounds` values, in order; a
// trailing partial block is left out.
std::vector<double> block_medians(std::span<const double> values, int block_rounds);

// One cell judged on its rounds' log-ratios.
struct CellJudgement {
  Outcome outcome = Outcome::inconclusive;
  InconclusiveReason reason = InconclusiveReason::none;
  int rounds = 0;
  double median_log = 0;      // median over rounds of d
  double error_pct = 0;       // (exp(median_log) − 1) × 100: > 0 when the step is slower than predicted
  double mean_ratio_pct = 0;  // (mean over rounds of exp(d) − 1) × 100
  RoundInterval hold;         // 1 − 2α on block medians of d
  RoundInterval falsify;      // 1 − α/m on block medians of d
  // An absolute form only (judge_absolute_cell): ℓ̄, the launch's mean level
  // that median_log and both intervals include; 0 for a paired form.
  double level_log = 0;
};

// `log_ratios` non-empty and finite; `family_cells` (m) ≥ 1.
CellJudgement judge_cell(std::span<const double> log_ratios, const DecisionRule& rule, int family_cells);

// A form whose prediction P is fixed for the whole launch (an outside form,
// `roofline`): judged at this launch's level. d_r = ln(measured / P) carries
// the machine's slow level, which moves over rounds (AR(1) ρ 0.83 here) and
// which a paired prediction cancels; block medians of d are then far from
// independent. `round_levels` holds ℓ_r = ln(A_r / A_0), the cell's
// t_compute(1) anchor in round r against its calibration value. The rule runs
// unchanged on e_r = d_r − ℓ_r (d with the round's level taken out), and the
// estimate and both intervals are shifted by ℓ̄ = mean ℓ_r: the form's error
// at the level this launch ran at, the level as measured and not estimated.
// A_0 cancels: the estimate is median(ln(measured_r / A_r)) + mean(ln A_r) − ln P.
// The mean ratio stays that of d. One value of ℓ per value of d, finite.
CellJudgement judge_absolute_cell(std::span<const double> log_ratios, std::span<const double> round_levels,
                                  const DecisionRule& rule, int family_cells);

// The cell's outcome and reason from its two intervals (hold, falsify)
// against the margin δ: the one decision every interval of the rule feeds.
void decide_on_intervals(CellJudgement& cell, double delta);

// The largest |error| in percent that a cell's 1 − 2α interval allows; NaN
// when the interval is not formed.
double cell_error_bound_pct(const CellJudgement& cell);

// A form at one k over its cells (grid order).
struct FormAtK {
  Outcome outcome = Outcome::inconclusive;
  InconclusiveReason reason = InconclusiveReason::none;
  std::vector<CellJudgement> cells;
  int worst_cell = 0;             // largest |median_log|
  double mape_pct = 0;            // mean over cells of |error_pct|
  double error_bound_pct = 0;     // the largest cell_error_bound_pct; NaN when some interval is not formed
};

// FALSIFIED when some cell is; HOLDS when every cell holds and `aa_holds`;
// otherwise INCONCLUSIVE with the first open cell's reason (aa_not_held when
// only the A/A withholds). `cells` non-empty.
FormAtK judge_form_at_k(std::vector<CellJudgement> cells, bool aa_holds);

}  // namespace tpb
