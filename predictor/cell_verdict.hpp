#pragma once
// The verdict of one (form, k) cell: its paired per-round errors judged by
// the decision rule, the calibration-time evaluation beside it, and the gates
// the controls set. Everything /verdict/{form}/k{K} carries.
#include <string>

#include "predictor/decision_rule.hpp"
#include "predictor/paired_errors.hpp"

namespace tpb {

// What the controls decided for the cells at one k (decision_controls.hpp).
struct CellGates {
  bool noise_floor = false;     // the k = 1 A/A control did not HOLD: every cell
  bool rank_imbalance = false;  // same-node spread bound > K/2: the k > 1 cells
  bool underpowered = false;    // power check or no_speedup failed at this k: no HOLDS
};

struct CellEvidence {
  bool applicable = true;
  std::string not_applicable_reason;  // the term the backend cannot measure
  PairedRoundErrors errors;           // one entry per round, in execution order
};

struct CellVerdict {
  Outcome outcome = Outcome::inconclusive;
  InconclusiveReason reason = InconclusiveReason::none;
  std::string not_applicable_reason;
  // Figures of the paired evaluation; NaN in a NOT_APPLICABLE verdict (never judged).
  double error_pct = 0;          // median over rounds of the per-round MAPE
  double error_ci_low_pct = 0;   // L
  double error_ci_high_pct = 0;  // U
  double drift_pct = 0;          // median over rounds of (sealed − paired) signed error
  double p_exceeds = 0;          // block-bootstrap P(error > kill switch)
  int rounds = 0;
  int rounds_needed = 0;         // further rounds for the paired interval to clear K (decision_rule.hpp)
  double sealed_error_pct = 0;   // the calibration-time evaluation, reported beside
  Outcome paired_outcome = Outcome::inconclusive;  // the interval rule before gates
  Outcome sealed_outcome = Outcome::inconclusive;
};

// The verdict at `alpha` (decision_alpha). Reasons take precedence in this
// order, the first that applies wins:
//   not applicable → NOT_APPLICABLE;
//   paired interval not formed → too_few_rounds;
//   gates.noise_floor → noise_floor;  gates.rank_imbalance → rank_imbalance;
//   paired and sealed intervals give opposite definite outcomes → drift;
//   paired interval straddles K → straddles_threshold;
//   paired HOLDS but gates.underpowered → underpowered;
//   otherwise the paired interval's outcome.
// The paired and sealed error series must have the same non-zero length.
CellVerdict judge_cell(const CellEvidence& evidence, const CellGates& gates, const DecisionRule& rule,
                       double alpha);

}  // namespace tpb
