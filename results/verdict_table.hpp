#pragma once
// The verdict of a study measured in rounds, rendered once for the console
// and for the report: one row per (k, form) with its verdict, the worst
// cell's error and interval, the MAPE over cells and the localized term,
// then the line that says what the table speaks for.
#include <string>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/round_evaluation.hpp"

namespace tpb {

enum class TableStyle { console, markdown };

// The table in `style`: columns aligned for the console, a pipe table for Markdown.
std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                         TableStyle style);

// The first screen's table (k ascending, forms in registered order).
std::string verdict_table(const RoundsEvaluation& evaluation, const Grid& grid, TableStyle style);

// The lines under it: its scope (one launch), the A/A gate, the negative
// control's sanity line, and the rule's α and margin.
std::vector<std::string> verdict_notes(const RoundsEvaluation& evaluation);

// "[+1.2, +8.0] %": a log interval as percent errors; "not formed" otherwise.
std::string interval_pct_text(const RoundInterval& interval);

}  // namespace tpb
