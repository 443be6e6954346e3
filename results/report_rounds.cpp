#include "results/report_rounds.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "common/error.hpp"
#include "predictor/measurement_warnings.hpp"
#include "predictor/statistics.hpp"
#include "predictor/study_design.hpp"
#include "results/layout.hpp"
#include "results/round_records.hpp"
#include "results/round_verdict_file.hpp"
#include "results/stored_lists.hpp"
#include "results/verdict_table.hpp"

namespace tpb {
namespace {

// "[1.2, 3.4]": the bounds of an interval already in percent.
std::string bounds_text(const RoundInterval& i) {
  return i.formed ? fmt::format("[{:.1f}, {:.1f}]", i.low, i.high) : std::string("(interval not formed)");
}

std::string straggler_text(const StragglerTerm& t) {
  std::vector<std::string> ranks;
  for (const RankSlowdown& r : t.ranks)
    ranks.push_back(fmt::format("rank {} {:.1f} %", r.rank, r.slowdown_pct.estimate));
  return fmt::format("{:.1f} % of t_step {}; slowdown per rank: {}", t.straggler_pct.estimate,
                     bounds_text(t.straggler_pct), fmt::join(ranks, ", "));
}

// The reported controls: none of them gates but the A/A (in the notes under
// the first table).
std::string diagnostics_section(const RoundsEvaluation& e, const Grid& grid,
                                const std::vector<std::string>& placements) {
  std::string s = "### Diagnostics (reported; only the A/A gates)\n\n| diagnostic | result |\n|---|---|\n";
  s += fmt::format("| same-node: TP-1 on every rank at once, spread across ranks (1 - 2α interval) | {} |\n",
                   !e.same_node_spread_pct ? std::string("not run (one rank)")
                                           : fmt::format("{:.1f} % {}", e.same_node_spread_pct->estimate,
                                                         bounds_text(*e.same_node_spread_pct)));
  for (int k : grid.tp) {
    if (k == 1) continue;
    const auto term = e.straggler.find(k);
    s += fmt::format("| straggler at k = {}: per round, mean − min over the ranks of their time inside the "
                     "collectives, % of t_step; the anchors already price the slowest rank | {} |\n",
                     k, term == e.straggler.end() ? std::string("not measured (collectives not timed per rank)")
                                                  : straggler_text(term->second));
  }
  s += "\n";
  for (const std::string& warning : rounds_warning_lines(e, placements)) s += "**WARNING** " + warning + "\n\n";
  return s;
}

// Every cell of every (form, k): both intervals, the mean ratio beside the
// median, and the calibration-time forecast's error (drift).
std::string cell_table(const RoundsEvaluation& e, const Grid& grid) {
  std::vector<std::vector<std::string>> rows;
  for (const FormKVerdict& v : e.cells) {
    if (v.outcome == Outcome::not_applicable) continue;
    for (std::size_t i = 0; i < v.judged.cells.size(); ++i) {
      const CellJudgement& c = v.judged.cells[i];
      rows.push_back({std::to_string(v.k),
                      v.absolute ? fmt::format("`{}` ({}absolute: includes this launch's level)", v.form,
                                               v.outside_source.empty() ? "" : "outside, ")
                                 : fmt::format("`{}`", v.form),
                      fmt::format("b={} c={}", grid.batch[i / grid.context.size()], grid.context[i % grid.context.size()]),
                      std::string(to_string(c.outcome)), fmt::format("{:+.2f} %", c.error_pct),
                      interval_pct_text(c.hold), interval_pct_text(c.falsify), fmt::format("{:+.2f} %", c.mean_ratio_pct),
                      fmt::format("{:+.2f} %", v.sealed_error_pct[i]),
                      v.absolute ? fmt::format("{:+.2f} %", pct_of(c.level_log)) : std::string("—")});
    }
  }
  return "### Every cell\n\nA form marked absolute has a prediction fixed for the launch: it is judged on the "
         "numbers it gave, at the level this launch ran at (its `t_compute(1)` anchors' mean over the rounds against "
         "the calibration's, in the last column; STATISTICS.md, Absolute forms).\n\n" +
         render_table({"k", "form", "cell", "cell verdict", "error (median)", "1 - 2α interval", "1 - α/m interval",
                       "mean ratio − 1", "calibration-time error (drift)", "launch level (absolute forms)"},
                      rows, TableStyle::markdown) +
         "\n";
}

// Per condition: the coefficient of variation of its per-round medians, and
// its samples outside Tukey's fences (1.5 IQR beyond the quartiles).
std::string warnings_section(const H5File& file) {
  std::string rows;
  int warned = 0;
  for (const std::string& path : read_round_condition_names(file)) {
    std::vector<std::uint64_t> dims;
    const std::vector<double> values = file.read_doubles(path + "/t_rank_us", &dims);
    const ConditionStability s = condition_stability(values, dims.at(0));
    if (s.unstable || s.spiky) ++warned;
    rows += fmt::format("| `{}` | {:.1f} %{} | {} of {} ({:.1f} %){} |\n", path.substr(std::string(kRoundsGroup).size() + 1),
                        s.cv_pct, s.unstable ? " **WARNING**" : "", s.outliers, s.samples,
                        100.0 * static_cast<double>(s.outliers) / static_cast<double>(s.samples),
                        s.spiky ? " **WARNING**" : "");
  }
  std::string s = fmt::format(
      "### Measurement warnings\n\n{} condition(s) warned: a coefficient of variation of the per-round medians above "
      "{:.0f} %, or Tukey outliers (beyond 1.5 IQR of the quartiles) in more than {:.0f} % of the samples. Outliers "
      "are counted, never dropped: the decision uses every round.\n\n| condition | CV over rounds | Tukey outliers |\n"
      "|---|---|---|\n",
      warned, kCvWarningPct, kOutlierWarningShare * 100);
  return s + rows + "\n";
}

std::string host_load_line(const H5File& file) {
  const std::vector<double> steal = file.read_doubles(visit_dataset_path(visit_dataset::steal_pct));
  const std::vector<double> load = file.read_doubles(visit_dataset_path(visit_dataset::load_avg_1m));
  std::vector<double> finite_steal;
  for (double v : steal)
    if (!std::isnan(v)) finite_steal.push_back(v);
  const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
  return fmt::format("Host during the visits: steal time median {} % (max {} %); 1-minute load average {:.2f} – "
                     "{:.2f} (`/rounds/visits/steal_pct`, `load_avg_1m`).\n\n",
                     finite_steal.empty() ? "—" : fmt::format("{:.2f}", median(finite_steal)),
                     finite_steal.empty() ? "—" : fmt::format("{:.2f}", *std::max_element(finite_steal.begin(), finite_steal.end())),
                     *lo, *hi);
}

}  // namespace

std::vector<std::string> rounds_warning_lines(const RoundsEvaluation& e, const std::vector<std::string>& placements) {
  std::vector<std::string> lines;
  for (const auto& [k, term] : e.straggler)
    if (const std::string warning = systematic_imbalance_warning(k, term, placements); !warning.empty())
      lines.push_back(warning);
  return lines;
}

RoundsReport rounds_report(const H5File& file, const Registration& r) {
  const RoundsDesign& d = r.design;
  const RoundsEvaluation e = read_round_verdicts(file, r);  // computed once, by `verdict`
  const std::vector<std::string> placements = read_rank_placements(file);
  const std::string stop_reason = read_rounds_stop_reason(file);

  RoundsReport out;
  out.answer = "## The answer per TP degree\n\n" + verdict_table(e, r.grid, TableStyle::markdown) + "\n";
  for (const std::string& note : verdict_notes(e)) out.answer += note + "\n\n";
  if (!stop_reason.empty()) out.answer += fmt::format("**Ended early by the {}.**\n\n", stop_reason);
  for (const std::string& warning : rounds_warning_lines(e, placements))
    out.answer += "**WARNING** " + warning + "\n\n";
  if (d.plan) out.answer += "Round plan (said before measuring): " + round_plan_line(*d.plan) + "\n\n";

  std::string& s = out.section;
  s = "## Verdicts over randomized interleaved rounds\n\n";
  s += fmt::format("{} of {} declared rounds (time budget {}). Each round visits {} conditions in an order drawn by "
                   "Fisher–Yates from seed {} (`/rounds/order`).\n\n",
                   e.rounds, d.rounds,
                   d.time_budget_s > 0 ? fmt::format("{:.0f} s, a guard", d.time_budget_s) : std::string("none"),
                   read_round_condition_names(file).size(), d.order_seed);
  s += fmt::format("**Rule (sealed in the registration's `decision_rule`, anchors `{}`):** {}\n\n", kAnchorConvention,
                   decision_rule_text(d.rule));
  s += diagnostics_section(e, r.grid, placements);
  s += cell_table(e, r.grid);
  s += warnings_section(file);
  s += host_load_line(file);
  s += "![run sequence](fig_run_sequence.png)\n\n`fig_run_sequence.png`: every visit's median t_step in execution "
       "order, coloured by condition (`/rounds/*/…/t_rank_us`, `/rounds/visits/execution_index`); a level shift or "
       "trend there is drift, which the paired evaluation cancels.\n\n";
  return out;
}

std::string environment_report_section(const H5File& file) {
  H5Handle meta = file.open_object(kMetaGroup);
  if (!has_attribute(meta.id(), "env_cpu_model")) return "";
  std::string s = "## Host environment (`/meta`)\n\n| item | value |\n|---|---|\n";
  using Row = std::pair<const char*, const char*>;
  for (const auto& [name, label] : {Row{"env_cpu_model", "CPU model"}, Row{"env_governor", "frequency governor"},
                                    Row{"env_smt", "SMT"}, Row{"env_load_average", "load average at start"},
                                    Row{"env_cgroup_cpu_quota", "cgroup CPU quota"},
                                    Row{"env_clocksource", "clock source"}})
    s += fmt::format("| {} | {} |\n", label, read_string_attribute(meta.id(), name));
  s += fmt::format("| binding | {} |\n\n", fmt::join(read_string_list_attribute(meta.id(), "env_binding"), "; "));
  return s;
}

}  // namespace tpb
