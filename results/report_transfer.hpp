#pragma once
// The report's `transfer` section: the fit carried from model A (its source,
// machine, digests and per-class parameters), then per k and grid cell the
// prediction calibrated on A against this study's measurement, the phase
// whose prediction departs most from this study's own shard replay (the
// localizer), and `ideal` calibrated on this study beside it. Empty when the
// registration holds no `transfer`.
#include <string>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/study_evaluation.hpp"
#include "results/h5_file.hpp"

namespace tpb {

std::string transfer_section(const H5File& file, const Registration& registration,
                             const std::vector<MeasuredCell>& measured);

}  // namespace tpb
