#pragma once
// The controls that gate every verdict, each a pure function judged by the
// same interval rule as the forms:
//   positive control: k = 1 is an A/A comparison for `ideal` and `replay`;
//   negative controls: `no_speedup` must be FALSIFIED at every k > 1, and
//     synthetic predictions measured × (1 ± 2K) must both be FALSIFIED;
//   same-node control: the spread of TP-1 across ranks (version 2 gated k > 1 on it).
#include <span>
#include <vector>

#include "predictor/cell_verdict.hpp"

namespace tpb {

// The A/A control over its cells (ideal, and under version 2 replay, at
// k = 1), each judged by the interval rule without gates.
struct AaControl {
  bool holds = true;     // every A/A cell HOLDS
  bool formed = true;    // every A/A interval has enough rounds: before that it has not failed, only not run far enough
  double upper_pct = 0;  // the largest A/A upper error bound: the most the measurement's own bias can be
};
AaControl aa_control(const std::vector<CellEvidence>& aa_cells, const DecisionRule& rule, double alpha);

struct PowerCheck {
  IntervalDecision over;   // prediction = measured × (1 + 2K)
  IntervalDecision under;  // prediction = measured × (1 − 2K)
  bool passes() const {
    return over.outcome == Outcome::falsified && under.outcome == Outcome::falsified;
  }
};

// Re-judges one k with synthetic predictions measured × (1 ± 2K), K the kill
// switch as a fraction, through the same interval rule; both must be
// FALSIFIED, or the noise at this k hides an error of twice the kill switch.
// "Measured" is the previous round's measurement of the same cell: the
// synthetic form then sees the noise of two measurements about one round
// apart, as a form's paired prediction does (its anchors are visited in the
// same round). A prediction from the median over all rounds would instead
// see the whole run's drift, which pairing removes from the forms' errors.
// Judged by the rule's own statistic (version 3: the median-first error of
// the log-ratios; version 2: the median of the per-round MAPE).
// `measured_us` is rounds × cells, ≥ 2 rounds; K < 50 % (predictions stay positive).
PowerCheck power_check(const std::vector<std::vector<double>>& measured_us, const DecisionRule& rule, double alpha);

// Per round, the same-node control's spread across ranks, (max − min) /
// median × 100, of TP-1 run on every rank at once; `rank_times_us` is rounds ×
// ranks (≥ 2 ranks). Returns the order-statistic interval of its median.
RoundInterval same_node_spread_interval(const std::vector<std::vector<double>>& rank_times_us, double alpha);

// Rank imbalance (version 2's gate): the spread's upper bound exceeds half
// the kill switch (or the spread cannot be bounded at this α).
bool rank_imbalance(const RoundInterval& spread, double kill_switch_pct);

// The controls' results for a whole study.
struct StudyControls {
  bool aa_holds = true;          // aa_control
  double aa_upper_pct = 0;       // aa_control's upper bound
  bool rank_imbalance = false;   // version 2: rank_imbalance of the same-node spread
  std::vector<int> unpowered_k;  // each k whose power check failed or whose no_speedup was not FALSIFIED
};

// A k has power when its power check passes and, for k > 1, `no_speedup`
// came out FALSIFIED there.
bool k_has_power(int k, const PowerCheck& power, Outcome no_speedup_outcome);

// The gates of every cell at TP degree k.
CellGates gates_for(int k, const StudyControls& controls);

}  // namespace tpb
