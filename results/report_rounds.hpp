#pragma once
// The account of a study measured in rounds, for the report: the verdict
// table (verdict_table.hpp) and its notes first, then the rule, the reported
// diagnostics, every cell with both intervals, the measurement's warnings
// (coefficient of variation above 10 %, Tukey outliers: counted, never
// dropped), and the host environment.
// The verdict is the one `verdict` wrote to /verdict, read back, never
// judged again; the warnings are computed from the raw /rounds datasets.
#include <string>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/round_evaluation.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// One line per TP degree whose straggler term names a systematically slower
// rank (systematic_imbalance_warning); `placements` indexed by world rank.
std::vector<std::string> rounds_warning_lines(const RoundsEvaluation& evaluation,
                                              const std::vector<std::string>& placements);

struct RoundsReport {
  std::string answer;   // the report's first screen: the verdict table, its notes, warnings, the round plan
  std::string section;  // the full account: rule, diagnostics, every cell, warnings
};

// Markdown; tpb::Error when /verdict lacks a figure.
RoundsReport rounds_report(const H5File& file, const Registration& registration);

// The /meta environment (env_* attributes) as a Markdown table; empty when absent.
std::string environment_report_section(const H5File& file);

}  // namespace tpb
