#pragma once
// The verdict of one (form, k) cell: its paired per-round errors judged by
// the decision rule, the calibration-time evaluation beside it, and the gates
// the controls set. Everything /verdict/{form}/k{K} carries.
#include <string>
#include <vector>

#include "predictor/decision_rule.hpp"
#include "predictor/paired_errors.hpp"

namespace tpb {

// What the controls decided for the cells at one k (decision_controls.hpp).
struct CellGates {
  bool noise_floor = false;     // the k = 1 A/A control did not HOLD: every cell
  double aa_upper_pct = 0;      // version 3: the A/A's upper error bound, the most its bias can add
  bool rank_imbalance = false;  // version 2: same-node spread bound > K/2: the k > 1 cells
  bool underpowered = false;    // power check or no_speedup failed at this k: no HOLDS
};

struct CellEvidence {
  bool applicable = true;
  std::string not_applicable_reason;  // the term the backend cannot measure
  PairedRoundErrors errors;           // version 2: one entry per round, in execution order
  PairedLogRatios log_ratios;         // version 3: rounds × cells, in execution order
};

struct CellVerdict {
  Outcome outcome = Outcome::inconclusive;
  InconclusiveReason reason = InconclusiveReason::none;
  std::string not_applicable_reason;
  // Figures of the paired evaluation; NaN in a NOT_APPLICABLE verdict (never judged).
  // Version 3: the mean over cells of |exp(median_r ln(measured / predicted)) − 1|.
  // Version 2: the median over rounds of the per-round MAPE.
  double error_pct = 0;
  double error_ci_low_pct = 0;   // L
  double error_ci_high_pct = 0;  // U: the upper bound of the unsigned error
  // Version 3: the mean of the signed cell errors (> 0: the step is slower
  // than predicted), its interval, and each cell's signed error in grid order.
  double signed_error_pct = 0;
  double signed_ci_low_pct = 0;
  double signed_ci_high_pct = 0;
  std::vector<double> cell_error_pct;
  double drift_pct = 0;          // median over rounds of (sealed − paired) signed error
  double p_exceeds = 0;          // bootstrap P(error > kill switch)
  int rounds = 0;
  int rounds_needed = 0;         // further rounds for the paired interval to clear K (decision_rule.hpp)
  double sealed_error_pct = 0;   // the calibration-time evaluation, reported beside
  Outcome paired_outcome = Outcome::inconclusive;  // the interval rule before gates
  Outcome sealed_outcome = Outcome::inconclusive;
  // The measured term that can account for a FALSIFIED cell's error (e.g.
  // "straggler"); empty when none does or the cell is not FALSIFIED.
  std::string explained_by;
};

// The verdict at `alpha` (decision_alpha), by the rule's version. Reasons
// take precedence in this order, the first that applies wins.
// Version 3:
//   not applicable → NOT_APPLICABLE;
//   paired interval not formed → too_few_rounds;
//   paired and sealed intervals give opposite definite outcomes → drift;
//   paired interval straddles K → straddles_threshold;
//   gates.noise_floor and HOLDS, or FALSIFIED with L ≤ K + gates.aa_upper_pct → noise_floor;
//   paired HOLDS but gates.underpowered → underpowered;
//   otherwise the paired interval's outcome.
// Version 2: not applicable, too_few_rounds, noise_floor, rank_imbalance,
// drift, straddles_threshold, underpowered, the outcome.
// The evidence of the rule's version must hold the same non-zero number of
// rounds in each of its series.
CellVerdict judge_cell(const CellEvidence& evidence, const CellGates& gates, const DecisionRule& rule,
                       double alpha);

}  // namespace tpb
