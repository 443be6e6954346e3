#pragma once
// What the calibration's rounds say about the noise a study will meet, read
// from /calibration_rounds before any TP-k step runs: the proxy the round
// plan reads (predictor/round_plan.hpp) and the seconds a measurement round
// is likely to take.
#include <vector>

#include "predictor/registration.hpp"
#include "results/h5_file.hpp"

namespace tpb {

struct CalibrationSpread {
  int rounds = 0;                   // calibration rounds in the file
  // Per grid cell (batch-major, then context): the SD over rounds of
  // ln t_replay(k) − ln t_compute(1), the largest over the grid's k > 1; for a
  // grid of k = 1 alone, the SD of round-to-round differences of
  // ln t_compute(1) over √2. Each round's value is the slowest of the
  // group's ranks (0..k−1), each rank's median over its iterations, as the
  // anchors are (kAnchorConvention).
  std::vector<double> cell_log_sd;
  double seconds_per_visit = 0;     // median calibration visit, warm-up and gather included
};

// UsageError when the file has no calibration rounds. Fewer than 3 rounds
// give no spread (cell_log_sd empty): an SD needs 2 degrees of freedom.
CalibrationSpread read_calibration_spread(const H5File& file, const Grid& grid);

}  // namespace tpb
