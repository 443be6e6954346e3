#pragma once
// The study report: a decision record in Markdown (report.md) with PNG
// figures, every number recomputed from the raw datasets of the results file.
#include <string>

namespace tpb {

// Writes DIR/report.md and the figures (DIR/fig_*.png, drawn by
// report_plots.py through /usr/bin/python3 with matplotlib). Refuses
// (UsageError) a file whose chain of custody is broken (results/custody.hpp),
// and throws tpb::Error when the verdicts recomputed from the raw datasets
// disagree with /verdict. Returns the path of report.md.
std::string write_report(const std::string& results_path, const std::string& out_dir);

// The Markdown alone (no figures): what write_report writes to report.md.
std::string render_report_markdown(const std::string& results_path);

// Writes `markdown` to DIR/report.md, then draws its figures into DIR with
// `/usr/bin/python3 SCRIPT DATA DIR`; returns report.md's path. `option`, the
// flag that named DIR, opens the error when report.md cannot be written.
std::string write_markdown_and_figures(const std::string& markdown, const std::string& dir, const char* option,
                                       const char* script, const std::string& data_path);

}  // namespace tpb
