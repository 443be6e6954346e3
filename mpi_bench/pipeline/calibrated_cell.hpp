#pragma once
// One grid cell's calibrated inputs, read from a study file: what register
// puts into predictions.json for a measured degree, and what the modelled
// degrees (--predict-tp) are predicted from.
#include <functional>
#include <string_view>

#include "predictor/piecewise_fit.hpp"
#include "predictor/registration.hpp"
#include "results/h5_file.hpp"
#include "results/layout.hpp"

namespace tpb {

// The piecewise latency-bandwidth fit of the calibration sweep's
// slowest-rank medians of `root` at degree k (below `under`, an ablation
// root, when given): what a collective term is read from.
PiecewiseFit sweep_fit(const H5File& file, SweepRoot root, int k, std::string_view under = {});

// The standalone time of one collective call of `bytes` at the cell's degree.
using CollectiveTermUs = std::function<double(SweepRoot root, double bytes)>;

// t_compute(1) from the TP-1 --no-comm point, t_host and t_replay from the
// shard replay of degree k, the payloads from the workload, and the
// collective terms from `collective_us`.
CellInputs calibrated_cell(const H5File& file, const Workload& w, int k, int batch, int context,
                           const CollectiveTermUs& collective_us);

}  // namespace tpb
