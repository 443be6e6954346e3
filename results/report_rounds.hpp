#pragma once
// The report's account of a study measured in rounds: the controls first,
// then the decision per (form, k) with its interval, drift and the rounds an
// open case needs, the measurement's warnings (coefficient of variation above
// 10 %, Tukey outliers: counted, never dropped), and the host environment.
// Everything is recomputed from the raw /rounds datasets and must equal the
// stored /verdict attributes.
#include <string>

#include "predictor/registration.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// Markdown; tpb::Error when a stored verdict differs from the recomputed one.
std::string rounds_report_section(const H5File& file, const Registration& registration);

// The /meta environment (env_* attributes) as a Markdown table; empty when absent.
std::string environment_report_section(const H5File& file);

}  // namespace tpb
