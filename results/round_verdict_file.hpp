#pragma once
// The rounds verdict in /verdict: per (form, k) the attributes verdict,
// reason, error_pct, error_ci_low_pct, error_ci_high_pct, drift_pct, rounds,
// rounds_needed, p_exceeds (and the calibration-time evaluation beside it);
// on /verdict itself the controls that gated them, α and the judged cells.
#include "predictor/round_evaluation.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// Writes onto the /verdict groups (creating them where needed); the point
// rule's single-pass verdict, when present, moves to `point_verdict`.
void write_round_verdicts(H5File& file, const RoundsEvaluation& evaluation);

// The reason text of a verdict: the INCONCLUSIVE reason or the
// NOT_APPLICABLE reason; empty for HOLDS and FALSIFIED.
std::string verdict_reason(const CellVerdict& verdict);

}  // namespace tpb
