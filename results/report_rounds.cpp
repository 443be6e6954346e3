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

// The term the rounds localize, with its departure from the form's share.
std::string localized_text(const std::optional<Localization>& l) {
  if (!l) return "not measured";
  return fmt::format("{} {:+.1f} us ({:+.1f} % of t_step)", l->term, l->departure_us, l->departure_pct);
}

bool interval_formed(const CellVerdict& v) { return v.reason != InconclusiveReason::too_few_rounds; }

// "error 4.10 % [1.20, 9.80] (signed +3.00 %)": the signed error only where the rule has one.
std::string error_text(const CellVerdict& v, int rule_version) {
  std::string s = fmt::format("error {} %", figure(v.error_pct));
  s += interval_formed(v) ? fmt::format(" [{}, {}]", figure(v.error_ci_low_pct), figure(v.error_ci_high_pct))
                          : std::string(" (interval not formed)");
  if (rule_version >= 3) s += fmt::format(" (signed {} %)", figure(v.signed_error_pct, "{:+.2f}"));
  return s;
}

std::string more_rounds(int needed) {
  return needed < 0 ? std::string("the error sits on K, so no count of rounds is predicted to settle it")
                    : fmt::format("about {} more round{}", needed, needed == 1 ? "" : "s");
}

// What would settle an open (INCONCLUSIVE) cell; empty for a decided one.
std::string settle_text(const FormKVerdict& cell) {
  const CellVerdict& v = cell.verdict;
  switch (v.reason) {
    case InconclusiveReason::none: return "";
    case InconclusiveReason::too_few_rounds: return "its interval needs " + more_rounds(v.rounds_needed);
    case InconclusiveReason::straddles_threshold: return "its interval straddles K: " + more_rounds(v.rounds_needed);
    case InconclusiveReason::noise_floor: return "settles once the A/A control at k = 1 HOLDS";
    case InconclusiveReason::underpowered:  // no_speedup is a control at k > 1 only
      return cell.k > 1 ? fmt::format("settles once the power check and no_speedup at k = {} pass", cell.k)
                        : fmt::format("settles once the power check at k = {} passes", cell.k);
    case InconclusiveReason::drift:
      return "the calibration-time evaluation reaches the opposite outcome (drift): recalibrate and rerun";
    case InconclusiveReason::rank_imbalance: return "settles once the same-node spread's bound falls below K/2";
  }
  return "";
}

// Whether two cells of one k reach the same judgement on the same figures
// (at k = 1 `ideal`, `replay` and `no_speedup` are one prediction), so that
// the answer names them together.
bool same_judgement(const FormKVerdict& a, const FormKVerdict& b) {
  const CellVerdict& x = a.verdict;
  const CellVerdict& y = b.verdict;
  return x.outcome == y.outcome && x.reason == y.reason && x.error_pct == y.error_pct &&
         x.error_ci_low_pct == y.error_ci_low_pct && x.error_ci_high_pct == y.error_ci_high_pct &&
         x.signed_error_pct == y.signed_error_pct && x.signed_ci_low_pct == y.signed_ci_low_pct &&
         x.signed_ci_high_pct == y.signed_ci_high_pct && x.rounds_needed == y.rounds_needed &&
         x.explained_by == y.explained_by && localized_text(a.localized) == localized_text(b.localized);
}

// `forms` share `cell`'s judgement.
std::string answer_of(const std::vector<std::string>& forms, const FormKVerdict& cell, int rule_version) {
  const CellVerdict& v = cell.verdict;
  std::string s = fmt::format("{} {}, {}, localized: {}", fmt::join(forms, ", "), to_string(v.outcome),
                              error_text(v, rule_version), localized_text(cell.localized));
  if (!v.explained_by.empty()) s += fmt::format(", explained by {}", v.explained_by);
  if (v.outcome == Outcome::inconclusive) s += fmt::format(" ({}; {})", to_string(v.reason), settle_text(cell));
  return s;
}

std::string straggler_text(const StragglerTerm& t) {
  const RoundInterval& s = t.straggler_pct;
  std::vector<std::string> ranks;
  for (const RankSlowdown& r : t.ranks)
    ranks.push_back(fmt::format("rank {} {:.1f} %", r.rank, r.slowdown_pct.estimate));
  return fmt::format("{:.1f} % of t_step {}; slowdown per rank: {}", s.estimate,
                     s.formed ? fmt::format("[{:.1f}, {:.1f}]", s.low, s.high) : std::string("(interval not formed)"),
                     fmt::join(ranks, ", "));
}

std::string controls_table(const RoundsEvaluation& e, const RoundsDesign& d, const Grid& grid,
                           const std::vector<std::string>& placements) {
  const RoundsControls& c = e.controls;
  const bool v3 = e.rule_version >= 3;
  std::string s = v3 ? "### Controls (the A/A, power and `no_speedup` rows gate; the same-node and straggler rows "
                       "localize and gate nothing)\n\n"
                     : "### Controls (they gate every verdict below)\n\n";
  s += "| control | result | what it does |\n|---|---|---|\n";
  const std::string aa_result = !c.aa_run     ? "not run (k = 1 not in the grid)"
                                : !c.aa_formed ? "not formed (too few rounds)"
                                               : fmt::format("{}, upper bound {:.2f} %",
                                                             c.aa_holds ? "HOLDS" : "**FAILED**", c.aa_upper_pct);
  s += v3 ? fmt::format("| positive: A/A at k = 1 (`ideal`; `replay` and `no_speedup` are the same prediction there) "
                        "| {} | when it fails: no HOLDS anywhere, and FALSIFIED only where L > K + its upper bound |\n",
                        aa_result)
          : fmt::format("| positive: A/A at k = 1 (`ideal`, `replay`) | {} | when it fails: every cell INCONCLUSIVE "
                        "(noise floor) |\n",
                        aa_result);
  for (const auto& [k, power] : c.power) {
    s += fmt::format("| power at k = {}: measured × (1 ± 2K) | {} / {} | when it fails: no HOLDS at k = {} "
                     "(underpowered) |\n",
                     k, to_string(power.over.outcome), to_string(power.under.outcome), k);
    if (k > 1 && c.no_speedup.count(k))
      s += fmt::format("| negative: `no_speedup` at k = {} | {} | unless FALSIFIED: no HOLDS at k = {} "
                       "(underpowered) |\n",
                       k, to_string(c.no_speedup.at(k)), k);
  }
  const std::string spread =
      !c.same_node_run ? "not run (one rank)"
                       : fmt::format("{:.1f} % {}{}", c.same_node_spread_pct.estimate,
                                     c.same_node_spread_pct.formed
                                         ? fmt::format("[{:.1f}, {:.1f}]", c.same_node_spread_pct.low,
                                                       c.same_node_spread_pct.high)
                                         : std::string("(interval not formed)"),
                                     c.rank_imbalance ? " **IMBALANCE**" : "");
  s += v3 ? fmt::format("| same-node: TP-1 on every rank at once, spread across ranks | {} | descriptive: a TP-k "
                        "step waits for its slowest rank, which the straggler term measures |\n",
                        spread)
          : fmt::format("| same-node: TP-1 on every rank at once, spread across ranks | {} | k > 1 cells INCONCLUSIVE "
                        "(rank imbalance) when the upper bound exceeds K/2 = {:.1f} % |\n",
                        spread, d.rule.kill_switch_pct / 2);
  for (int k : grid.tp) {
    if (k == 1) continue;
    const auto term = e.straggler.find(k);
    s += fmt::format("| straggler at k = {}: per round, mean − min over the ranks of their time inside the "
                     "collectives, % of t_step | {} | localizes: a FALSIFIED cell whose lower bound it reaches is "
                     "explained by it; a rank slower across rounds by more than K/2 is a warning |\n",
                     k, term == e.straggler.end() ? std::string("not measured (collectives not timed per rank)")
                                                  : straggler_text(term->second));
  }
  s += "\n";
  for (const std::string& warning : rounds_warning_lines(e, placements)) s += "**WARNING** " + warning + "\n\n";
  return s;
}

std::string verdict_table(const RoundsEvaluation& e) {
  std::string s = "### Decision per (form, k)\n\n| k | form | verdict | reason | explained by | error E | signed error | "
                  "interval [L, U] of E | signed interval | localized term (rounds) | drift (sealed − paired) | "
                  "calibration-time error | P(E > K) | rounds | further rounds |\n"
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  const bool v3 = e.rule_version >= 3;
  std::vector<const FormKVerdict*> sorted;
  for (const auto& cell : e.cells) sorted.push_back(&cell);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->k < b->k; });
  for (const auto* cell : sorted) {
    const CellVerdict& v = cell->verdict;
    if (v.outcome == Outcome::not_applicable) {
      s += fmt::format("| {} | `{}` | **NOT_APPLICABLE** | {} | — | — | — | — | — | — | — | — | — | — | — |\n",
                       cell->k, cell->form, v.not_applicable_reason);
      continue;
    }
    const bool formed = interval_formed(v);
    s += fmt::format(
        "| {} | `{}` | **{}** | {} | {} | {} % | {} | {} | {} | {} | {} % | {} % | {:.3f} | {} | {} |\n", cell->k,
        cell->form, to_string(v.outcome), verdict_reason(v), v.explained_by.empty() ? "—" : v.explained_by,
        figure(v.error_pct), v3 ? figure(v.signed_error_pct, "{:+.2f}") + " %" : std::string("—"),
        formed ? fmt::format("[{}, {}] %", figure(v.error_ci_low_pct), figure(v.error_ci_high_pct))
               : std::string("not formed"),
        v3 && formed ? fmt::format("[{}, {}] %", figure(v.signed_ci_low_pct, "{:+.2f}"),
                                   figure(v.signed_ci_high_pct, "{:+.2f}"))
                     : std::string("—"),
        cell->localized ? localized_text(cell->localized) : std::string("not measured"),
        figure(v.drift_pct, "{:+.2f}"), figure(v.sealed_error_pct), v.p_exceeds, v.rounds,
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

std::string rule_paragraph(const RoundsEvaluation& e, const RoundsDesign& d) {
  std::string s = fmt::format("**Rule (version {}, sealed in the registration's `decision_rule`):** {}\n\n",
                              d.rule.version, decision_rule_text(d.rule.version));
  if (e.rule_version >= 3)
    return s + fmt::format("This look, after {} rounds, is {}: α = {:.3g} per interval, the family's {} spent by "
                           "O'Brien–Fleming over the checkpoints and split over {} judged cells; K = {:.1f} %.\n\n",
                           e.rounds,
                           e.final_look ? "the final one and spends what earlier looks left" : "an interim one",
                           e.alpha, d.rule.family_alpha, e.judged_cells, d.rule.kill_switch_pct);
  return s + fmt::format("α = {:.3g} per interval ({} family-wise over {} judged cells × {} checkpoints); K = "
                         "{:.1f} %.\n\n",
                         e.alpha, d.rule.family_alpha, e.judged_cells, d.rule.checkpoints.size(),
                         d.rule.kill_switch_pct);
}

}  // namespace

std::vector<std::string> rounds_answer_lines(const RoundsEvaluation& e) {
  std::vector<int> degrees;
  for (const FormKVerdict& cell : e.cells)
    if (std::find(degrees.begin(), degrees.end(), cell.k) == degrees.end()) degrees.push_back(cell.k);
  std::sort(degrees.begin(), degrees.end());
  std::vector<std::string> lines;
  for (int k : degrees) {
    // Each distinct judgement once, with the forms that reach it.
    std::vector<std::pair<const FormKVerdict*, std::vector<std::string>>> groups;
    std::vector<std::string> not_applicable;
    for (const FormKVerdict& cell : e.cells) {
      if (cell.k != k) continue;
      if (cell.verdict.outcome == Outcome::not_applicable) {
        not_applicable.push_back(cell.form);
        continue;
      }
      const auto same = std::find_if(groups.begin(), groups.end(),
                                     [&](const auto& group) { return same_judgement(*group.first, cell); });
      if (same == groups.end())
        groups.push_back({&cell, {cell.form}});
      else
        same->second.push_back(cell.form);
    }
    std::vector<std::string> parts;
    for (const auto& [cell, forms] : groups) parts.push_back(answer_of(forms, *cell, e.rule_version));
    if (!not_applicable.empty()) parts.push_back(fmt::format("{} NOT_APPLICABLE", fmt::join(not_applicable, ", ")));
    lines.push_back(fmt::format("TP-{}: {}", k, fmt::join(parts, "; ")));
  }
  return lines;
}

std::vector<std::string> rounds_warning_lines(const RoundsEvaluation& e, const std::vector<std::string>& placements) {
  std::vector<std::string> lines;
  for (const auto& [k, term] : e.straggler)
    if (const std::string warning = systematic_imbalance_warning(k, term, placements); !warning.empty())
      lines.push_back(warning);
  return lines;
}

RoundsReport rounds_report(const H5File& file, const Registration& r) {
  const RoundsDesign d = design_of(r);
  const RoundsEvaluation e = evaluate_rounds(r, d, read_round_observations(file, r.grid));
  check_stored(file, e);
  const std::vector<std::string> placements = read_rank_placements(file);

  RoundsReport out;
  out.answer = fmt::format("## The answer per TP degree\n\nDecided over {} rounds by the sealed rule (version {}; "
                           "below, \"Verdicts over randomized interleaved rounds\"): per k each form's verdict, its "
                           "error E with the interval [L, U] against K = {:.1f} %, the term the rounds localize, and "
                           "what would settle an open cell.\n\n",
                           e.rounds, e.rule_version, d.rule.kill_switch_pct);
  for (const std::string& line : rounds_answer_lines(e)) out.answer += "- " + line + "\n";
  out.answer += "\n";
  for (const std::string& warning : rounds_warning_lines(e, placements))
    out.answer += "**WARNING** " + warning + "\n\n";
  if (d.plan) out.answer += "Round plan: " + round_plan_line(*d.plan, d.rule.kill_switch_pct) + "\n\n";

  H5Handle rounds = file.open_object(kRoundsGroup);
  std::string& s = out.section;
  s = "## Verdicts over randomized interleaved rounds\n\n";
  s += fmt::format("{} rounds (sealed {}:{}, checkpoints {}, time budget {}), stopped: {}. Each round visits {} "
                   "conditions in an order drawn by Fisher–Yates from seed {} (`/rounds/order`).\n\n",
                   e.rounds, d.min_rounds, d.max_rounds, fmt::join(d.rule.checkpoints, ", "),
                   d.time_budget_s > 0 ? fmt::format("{:.0f} s", d.time_budget_s) : std::string("none"),
                   read_string_attribute(rounds.id(), "stop_reason"), read_round_condition_names(file).size(),
                   d.order_seed);
  s += rule_paragraph(e, d);
  s += controls_table(e, d, r.grid, placements);
  s += verdict_table(e);
  s += warnings_section(file);
  s += host_load_line(file);
  s += "![run sequence](fig_run_sequence.png)\n\n`fig_run_sequence.png`: every visit's median t_step in execution "
       "order, coloured by condition (`/rounds/*/…/t_step_us`, `/rounds/visits/execution_index`); a level shift or "
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
