#pragma once
// The report's Decision section, rendered from /decision (or from a decision
// record): capacity per k, the step time, TPOT and tokens/s per device at each
// admissible batch with measured and MODELLED rows told apart, the forms and
// boundaries of every modelled figure, and the choice under a TPOT SLO.
#include <string>

#include "predictor/deployment_decision.hpp"
#include "results/h5_file.hpp"

namespace tpb {

std::string decision_markdown(const DeploymentDecision& decision);

// The section for a study file; says so when the file holds no /decision.
std::string decision_section(const H5File& file);

}  // namespace tpb
