#pragma once
// The report's collective-ablation section (`run --ablate-collective`).
#include <string>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/study_evaluation.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// One "## Collective ablation" section per ablation the file holds, "" when it
// holds none: per k, the collective term of the study's own collective and of
// the ablation's (predicted from each one's sweeps, and measured in situ), the
// measured t_step of both, what the ablation's collective removes, and each
// form's single-pass MAPE under both, without a verdict (one pass is not what
// the study's rule decides on). Every figure is recomputed from the raw datasets;
// UsageError when an ablation's chain of custody is broken.
std::string ablation_sections(const H5File& file, const Registration& study,
                              const std::vector<FormDegreeResult>& study_results,
                              const std::vector<MeasuredCell>& study_measured);

}  // namespace tpb
