#pragma once
// The decision rule sealed in a registration: four outcomes, an interval
// against the kill switch, Bonferroni's α over cells and checkpoints, and the
// further rounds an open case needs. The rule, in words:
//   FALSIFIED only when the interval's lower bound L > kill switch;
//   HOLDS only when its upper bound U < kill switch;
//   otherwise INCONCLUSIVE, with its reason and the rounds predicted to settle it;
//   NOT_APPLICABLE when the backend cannot measure a term the form needs.
#include <string_view>
#include <vector>

#include "predictor/round_interval.hpp"

namespace tpb {

enum class Outcome { holds, falsified, inconclusive, not_applicable };
std::string_view to_string(Outcome outcome);  // "HOLDS", "FALSIFIED", "INCONCLUSIVE", "NOT_APPLICABLE"

enum class InconclusiveReason {
  none,                 // the outcome is not INCONCLUSIVE
  straddles_threshold,  // L ≤ kill switch ≤ U
  drift,                // paired and calibration-time verdicts are opposite
  rank_imbalance,       // same-node spread bound above half the kill switch (k > 1)
  noise_floor,          // the k = 1 A/A control does not HOLD
  underpowered,         // power check or no_speedup control failed at this k: no HOLDS
  too_few_rounds,       // fewer rounds than the interval needs at this α
};
std::string_view to_string(InconclusiveReason reason);  // "", "straddles_threshold", "drift", ...

// The statistic, interval and α spending a rule seals:
//   5: as 4, the level drawn as the difference between two rounds' levels
//      (cell_verdict.cpp), which is symmetric whatever the level does. Under
//      4 each resample drew one round's deviation from the median level: on
//      a machine that jumps between two levels and spends most rounds at one,
//      those deviations all point one way, and where the calibration had met
//      the other level they moved the sealed error further from the paired
//      one instead of toward it (docs/STATISTICS.md, "Two levels").
//   4: as 3, with the calibration-time interval (the drift gate's) widened by
//      the level the paired predictions moved through over the rounds: each
//      resample also draws one round's level (cell_verdict.cpp). Under 3 that
//      interval took the sealed numbers as exact, so a machine whose level
//      wanders by more than the kill switch between calibration and
//      measurement read a right form as FALSIFIED there and gated it as drift.
//   3: median first (form_error.hpp): per cell the median over rounds of the
//      paired log-ratio, the form's error the mean of their absolute values,
//      its interval from resampling whole rounds; α spent over the looks by
//      O'Brien–Fleming (alpha_spending.hpp), Bonferroni over the cells; the
//      same-node control localizes and never gates.
//   2: the median over rounds of the per-round MAPE with its order-statistic
//      interval; α split by Bonferroni over cells × checkpoints; a same-node
//      spread above K/2 withholds every verdict at k > 1. Kept so that a file
//      sealed under it is judged by the rule it sealed.
inline constexpr int kDecisionRuleVersion = 5;

struct DecisionRule {
  int version = kDecisionRuleVersion;
  double kill_switch_pct = 15.0;
  double family_alpha = 0.05;                // shared by every judged cell and look
  std::vector<int> checkpoints{8, 16, 32};   // rounds at which cells are judged; the last is the maximum
  // Version 3: the resampling of whole rounds behind every interval and
  // p_exceeds (at least this many resamples; more for a small α). Version 2:
  // the block bootstrap of p_exceeds.
  BlockBootstrapOptions bootstrap{10000};
  int max_rounds() const { return checkpoints.back(); }
};

// UsageError naming the bad value: a version outside 2..kDecisionRuleVersion,
// kill switch outside (0, 1000] %, α outside (0, 1), bootstrap resamples not positive or a negative block length, no
// checkpoints, or checkpoints not positive and strictly increasing.
void validate_decision_rule(const DecisionRule& rule);

// α of one interval at the look after `rounds_done` rounds. Version 3: the
// look's share of the family α (look_alpha; `final_look` when the look ends
// the study) over the judged cells. Version 2: family_alpha / (judged_cells ×
// checkpoints), whatever the look.
double decision_alpha(const DecisionRule& rule, int judged_cells, int rounds_done, bool final_look);

struct IntervalDecision {
  Outcome outcome = Outcome::inconclusive;
  InconclusiveReason reason = InconclusiveReason::none;
};

// The rule on the interval alone: too_few_rounds when it is not formed.
IntervalDecision decide_on_interval(const RoundInterval& interval, double kill_switch_pct);

inline constexpr int kRoundsNeededUnknown = -1;  // the estimate sits on (or within a hair of) the threshold

// Further rounds until the interval clears the kill switch, assuming its
// half-width on the side facing the threshold shrinks as 1/√n: n' =
// ⌈n·(w / |estimate − K|)²⌉, at least one more round. 0 when the interval
// already clears it; min_rounds_for_median_interval(alpha) − n when it is
// not formed; kRoundsNeededUnknown when the estimate equals the threshold
// or the prediction exceeds a million rounds.
int rounds_needed(const RoundInterval& interval, double kill_switch_pct, double alpha);

}  // namespace tpb
