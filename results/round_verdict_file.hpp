#pragma once
// The rounds verdict in /verdict (rule version 6). Per (form, k): verdict,
// reason, mape_pct, worst_cell, error_ci_high_pct (the largest |error| any
// cell's 1 − 2α interval allows) and per cell in grid order (the order of the
// group's batch and context datasets): cell_verdict, cell_error_pct (the
// median), cell_mean_ratio_pct, both intervals' bounds (cell_hold_*,
// cell_falsify_*; NaN where not formed), cell_sealed_error_pct (drift); where
// the rounds measured a term, localized_term with its figures. A
// NOT_APPLICABLE verdict carries only its reason. On /verdict itself: the
// rule, the rounds and blocks, α, m, the A/A control, the same-node spread and
// per k whose collectives were timed on every rank the straggler term and,
// for a rank slower across rounds, a warning naming it with its host and
// device. A figure that was not measured is absent, never 0.
#include <string>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/round_evaluation.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// Writes onto the /verdict groups (creating them where needed); the point
// rule's single-pass verdict, when present, moves to `point_verdict`. Reads
// /meta's rank map to name a systematically slower rank's host and device.
void write_round_verdicts(H5File& file, const RoundsEvaluation& evaluation);

// The rounds verdict as write_round_verdicts stored it: the verdict is
// computed once, by `verdict`, and the report and a campaign read it back.
// `registration` gives the rule, the grid and the forms in their order; the
// per-round series are not stored, so a cell's `rounds` is the study's and
// the figures are the stored percents (medians and bounds in ln again).
// tpb::Error naming the path when /verdict lacks a (form, k) or a figure.
RoundsEvaluation read_round_verdicts(const H5File& file, const Registration& registration);

// Per world rank, "host H, device D" from /meta's rank map (one JSON object
// per rank, as provenance writes it); "?" for a field a row lacks, and empty
// when the file holds no rank map.
std::vector<std::string> read_rank_placements(const H5File& file);

// The warning for a TP degree whose straggler term names a systematically
// slower rank: the rank, its placement (`placements`, indexed by world rank:
// group 0's rank r is world rank r) and its slowdown with the interval;
// empty when no rank is.
std::string systematic_imbalance_warning(int k, const StragglerTerm& term, const std::vector<std::string>& placements);

}  // namespace tpb
