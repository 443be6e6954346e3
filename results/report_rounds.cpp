#include "results/report_rounds.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/error.hpp"
#include "predictor/measurement_warnings.hpp"
#include "predictor/statistics.hpp"
#include "results/layout.hpp"
#include "results/round_records.hpp"
#include "results/round_verdict_file.hpp"

namespace tpb {
namespace {

RoundsDesign design_of(const Registration& r) {
  if (r.design) return *r.design;
  throw UsageError("FILE: the registration seals no rounds design (version 1) but the file holds rounds");
}

std::string figure(double value, const char* format = "{:.2f}") {
  return std::isnan(value) ? "—" : fmt::format(fmt::runtime(format), value);
}

void check_stored(const H5File& file, const RoundsEvaluation& e) {
  for (const FormKVerdict& cell : e.cells) {
    const std::string path = verdict_group_path(cell.form, cell.k);
    TPB_CHECK(file.exists(path), fmt::format("{} is missing: run 'mpi_bench verdict' first", path));
    H5Handle group = file.open_object(path);
    const std::string stored = read_string_attribute(group.id(), "verdict");
    TPB_CHECK(stored == to_string(cell.verdict.outcome),
              fmt::format("{}: stored verdict {} but the raw rounds give {}", path, stored,
                          to_string(cell.verdict.outcome)));
  }
}

std::string controls_table(const RoundsEvaluation& e, const RoundsDesign& d) {
  const RoundsControls& c = e.controls;
  std::string s = "### Controls (they gate every verdict below)\n\n| control | result | consequence when it fails |\n"
                  "|---|---|---|\n";
  s += fmt::format("| positive: A/A at k = 1 (`ideal`, `replay`) | {} | every cell INCONCLUSIVE (noise floor) |\n",
                   !c.aa_run     ? "not run (k = 1 not in the grid)"
                   : c.aa_holds  ? "HOLDS"
                   : c.aa_formed ? "**FAILED**"
                                 : "not formed (too few rounds)");
  for (const auto& [k, power] : c.power) {
    s += fmt::format("| power at k = {}: measured × (1 ± 2K) | {} / {} | no HOLDS at k = {} (underpowered) |\n", k,
                     to_string(power.over.outcome), to_string(power.under.outcome), k);
    if (k > 1 && c.no_speedup.count(k))
      s += fmt::format("| negative: `no_speedup` at k = {} | {} | no HOLDS at k = {} (underpowered) |\n", k,
                       to_string(c.no_speedup.at(k)), k);
  }
  s += fmt::format("| same-node: TP-1 on every rank at once, spread across ranks | {} | k > 1 cells INCONCLUSIVE (rank imbalance) "
                   "when the upper bound exceeds K/2 = {:.1f} % |\n",
                   !c.same_node_run ? "not run (one rank)"
                                    : fmt::format("{:.1f} % {}{}", c.same_node_spread_pct.estimate,
                                                  c.same_node_spread_pct.formed
                                                      ? fmt::format("[{:.1f}, {:.1f}]", c.same_node_spread_pct.low,
                                                                    c.same_node_spread_pct.high)
                                                      : std::string("(interval not formed)"),
                                                  c.rank_imbalance ? " **IMBALANCE**" : ""),
                   d.rule.kill_switch_pct / 2);
  return s + "\n";
}

std::string verdict_table(const RoundsEvaluation& e) {
  std::string s = "### Decision per (form, k)\n\n| k | form | verdict | reason | error (median over rounds) | "
                  "interval [L, U] | drift (sealed − paired) | calibration-time error | P(error > K) | rounds | "
                  "further rounds |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::vector<const FormKVerdict*> sorted;
  for (const auto& cell : e.cells) sorted.push_back(&cell);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->k < b->k; });
  for (const auto* cell : sorted) {
    const CellVerdict& v = cell->verdict;
    if (v.outcome == Outcome::not_applicable) {
      s += fmt::format("| {} | `{}` | **NOT_APPLICABLE** | {} | — | — | — | — | — | — | — |\n", cell->k, cell->form,
                       v.not_applicable_reason);
      continue;
    }
    const bool formed = v.reason != InconclusiveReason::too_few_rounds;  // no interval at this α yet
    s += fmt::format("| {} | `{}` | **{}** | {} | {} % | {} | {} % | {} % | {:.3f} | {} | {} |\n", cell->k, cell->form,
                     to_string(v.outcome), verdict_reason(v), figure(v.error_pct),
                     formed ? fmt::format("[{}, {}] %", figure(v.error_ci_low_pct), figure(v.error_ci_high_pct))
                            : std::string("not formed"),
                     figure(v.drift_pct, "{:+.2f}"),
                     figure(v.sealed_error_pct), v.p_exceeds, v.rounds,
                     v.rounds_needed < 0 ? std::string("unknown") : std::to_string(v.rounds_needed));
  }
  return s + "\n";
}

// Per condition: the coefficient of variation of its per-round medians, and
// its samples outside Tukey's fences (1.5 IQR beyond the quartiles).
std::string warnings_section(const H5File& file) {
  std::string rows;
  int warned = 0;
  for (const std::string& path : read_round_condition_names(file)) {
    std::vector<std::uint64_t> dims;
    const std::vector<double> values = file.read_doubles(path + "/t_step_us", &dims);
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

std::string rounds_report_section(const H5File& file, const Registration& r) {
  const RoundsDesign d = design_of(r);
  const RoundsEvaluation e = evaluate_rounds(r, d, read_round_observations(file, r.grid));
  check_stored(file, e);
  H5Handle rounds = file.open_object(kRoundsGroup);
  std::string s = "## Verdicts over randomized interleaved rounds\n\n";
  s += fmt::format(
      "{} rounds (sealed {}:{}, checkpoints {}, time budget {}), stopped: {}. Each round visits {} conditions in an "
      "order drawn by Fisher–Yates from seed {} (`/rounds/order`). Per (form, k): the per-round MAPE over the grid "
      "of the form evaluated on the anchors measured in the same round; its median and order-statistic interval at "
      "α = {:.2g} per cell ({} family-wise over {} judged cells × {} checkpoints), against the kill switch K = "
      "{:.1f} %. FALSIFIED when L > K, HOLDS when U < K, otherwise INCONCLUSIVE.\n\n",
      e.rounds, d.min_rounds, d.max_rounds, fmt::join(d.rule.checkpoints, ", "),
      d.time_budget_s > 0 ? fmt::format("{:.0f} s", d.time_budget_s) : std::string("none"),
      read_string_attribute(rounds.id(), "stop_reason"), read_round_condition_names(file).size(), d.order_seed,
      e.alpha, d.rule.family_alpha, e.judged_cells, d.rule.checkpoints.size(), d.rule.kill_switch_pct);
  s += controls_table(e, d);
  s += verdict_table(e);
  s += warnings_section(file);
  s += host_load_line(file);
  s += "![run sequence](fig_run_sequence.png)\n\n`fig_run_sequence.png`: every visit's median t_step in execution "
       "order, coloured by condition (`/rounds/*/…/t_step_us`, `/rounds/visits/execution_index`); a level shift or "
       "trend there is drift, which the paired evaluation cancels.\n\n";
  return s;
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
