#pragma once
// Paired evaluation of one (form, k) over rounds. In every round each form is
// evaluated twice: on the anchor terms measured in that same round (paired,
// so a drift common to all conditions cancels) and on the sealed
// calibration-time numbers. Each round yields one error per evaluation and
// the drift between them.
#include <vector>

#include "predictor/form_error.hpp"

namespace tpb {

// One grid cell (b, c) of one round.
struct RoundCellTimes {
  double measured_us = 0;          // the cell's measured t_step in this round
  double predicted_paired_us = 0;  // the form on this round's anchor terms
  double predicted_sealed_us = 0;  // the form on the sealed calibration numbers
};

struct PairedRoundErrors {
  std::vector<double> paired_pct;  // per round: MAPE over the grid, paired prediction
  std::vector<double> sealed_pct;  // per round: MAPE over the grid, calibration-time prediction
  std::vector<double> drift_pct;   // per round: mean over the grid of (sealed − paired) / measured × 100
};

// `rounds` is rounds × grid cells, rounds in execution order; every round
// holds the same non-zero number of cells and every measurement is > 0.
// The per-round MAPE of registration version 2, judged by the rule it sealed.
PairedRoundErrors paired_round_errors(const std::vector<std::vector<RoundCellTimes>>& rounds);

// The same rounds as log-ratios, the median-first statistic's input
// (form_error.hpp), for the paired and the calibration-time predictions.
struct PairedLogRatios {
  LogRatios paired;                // rounds × cells: ln(measured / paired prediction)
  LogRatios sealed;                // rounds × cells: ln(measured / calibration-time prediction)
  std::vector<double> drift_pct;   // per round: mean over the grid of ln(sealed / paired prediction) × 100
};
PairedLogRatios paired_log_ratios(const std::vector<std::vector<RoundCellTimes>>& rounds);

}  // namespace tpb
