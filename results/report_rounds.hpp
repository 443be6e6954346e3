#pragma once
// The account of a study measured in rounds, for the report and the console:
// the answer per TP degree in one line each, the controls (which gate and
// which localize, by the sealed rule's version), the decision per (form, k)
// with its signed and unsigned error, interval, localized term and what an
// open case needs, the measurement's warnings (coefficient of variation above
// 10 %, Tukey outliers: counted, never dropped), and the host environment.
// Everything is recomputed from the raw /rounds datasets and must equal the
// stored /verdict attributes.
#include <string>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/round_evaluation.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// Per TP degree, in grid order, one line: "TP-k: " then each form's verdict
// with its error and interval (signed beside it under rule version 3), the
// term the rounds localize, what explains a FALSIFIED cell, and for an open
// cell its reason and what would settle it. Plain text, for the console's
// last lines and the report's first screen alike.
std::vector<std::string> rounds_answer_lines(const RoundsEvaluation& evaluation);

// One line per TP degree whose straggler term names a systematically slower
// rank (systematic_imbalance_warning); `placements` indexed by world rank.
std::vector<std::string> rounds_warning_lines(const RoundsEvaluation& evaluation,
                                              const std::vector<std::string>& placements);

struct RoundsReport {
  std::string answer;   // the report's first screen: the answer per k, warnings, the round plan
  std::string section;  // the full account: rule, controls, decision table, warnings
};

// Markdown; tpb::Error when a stored verdict differs from the recomputed one.
RoundsReport rounds_report(const H5File& file, const Registration& registration);

// The /meta environment (env_* attributes) as a Markdown table; empty when absent.
std::string environment_report_section(const H5File& file);

}  // namespace tpb
