// verdict: judges the measurement against the registration it ran under, and
// refuses any file where that chain of custody is broken.
#include <fmt/format.h>

#include "common/error.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_rounds.hpp"
#include "predictor/sha256.hpp"
#include "results/custody.hpp"
#include "results/round_records.hpp"
#include "results/report_rounds.hpp"
#include "results/round_verdict_file.hpp"

namespace tpb {

StudyVerdict verdict_stage(H5File& file, const DesignClaims& claims) {
  const Registration r = checked_registration(file);
  if (claims.kill_switch_pct)
    for (const auto& row : r.kill_switches)
      if (row.mape_threshold_pct != *claims.kill_switch_pct)
        throw UsageError(fmt::format("--kill-switch: {} % differs from the {} % registered for {}; thresholds are "
                                     "fixed at registration",
                                     *claims.kill_switch_pct, row.mape_threshold_pct, row.form));
  const RoundsDesign design = registered_design(r);
  const std::string difference = design_claims_difference(design, claims);
  if (!difference.empty()) throw UsageError(difference);
  StudyVerdict verdict;
  verdict.point = evaluate_study(r, read_measured_cells(file, r.grid), registered_bootstrap(r));
  write_verdicts(file, verdict.point, read_prereg(file).sha256);
  if (has_rounds(file)) {
    verdict.rounds = evaluate_rounds(r, design, read_round_observations(file, r.grid));
    write_round_verdicts(file, *verdict.rounds);
    verdict.rank_placements = read_rank_placements(file);
  }
  return verdict;
}

}  // namespace tpb

namespace tpb {
namespace {

std::string point_summary(const std::vector<FormDegreeResult>& results) {
  std::string text = fmt::format("# {:<11} {:>3} {:>9} {:>11} {:<10}  {}\n", "form", "k", "MAPE(%)", "kill(%)",
                                 "verdict", "localizing term (grid mean)");
  for (const auto& r : results)
    text += fmt::format("  {:<11} {:>3} {:>9.2f} {:>11.2f} {:<10}  {} {:+.1f} us ({:+.1f} % of t_step)\n",
                        r.judgement.form, r.judgement.k, r.judgement.mape_pct, r.judgement.threshold_pct,
                        to_string(r.judgement.verdict), r.culprit.term, r.culprit.departure_us,
                        r.culprit.departure_pct);
  return text;
}

std::string same_node_line(const RoundsEvaluation& e) {
  const RoundsControls& c = e.controls;
  if (!c.same_node_run) return "not run";
  const RoundInterval& spread = c.same_node_spread_pct;
  const std::string figures = fmt::format("spread {:.1f} % (upper {})", spread.estimate,
                                          spread.formed ? fmt::format("{:.1f} %", spread.high) : "not formed");
  // Under version 3 the spread gates nothing: the straggler term localizes.
  if (e.rule_version >= 3) return figures + ", descriptive";
  return figures + (c.rank_imbalance ? ": RANK IMBALANCE" : "");
}

std::string straggler_line(int k, const StragglerTerm& t) {
  const RoundInterval& s = t.straggler_pct;
  std::vector<std::string> ranks;
  for (const RankSlowdown& r : t.ranks) ranks.push_back(fmt::format("{:.1f}", r.slowdown_pct.estimate));
  return fmt::format("# straggler k={}: {:.1f} % of t_step ({}), slowdown per rank {} %\n", k, s.estimate,
                     s.formed ? fmt::format("{:.1f}..{:.1f}", s.low, s.high) : "interval not formed",
                     fmt::join(ranks, ", "));
}

std::string rounds_summary(const RoundsEvaluation& e, const std::vector<std::string>& placements) {
  const RoundsControls& c = e.controls;
  std::string text = fmt::format("# rule version {}, rounds {} ({} look), judged cells {}, alpha per interval {:.2g}\n",
                                 e.rule_version, e.rounds, e.final_look ? "final" : "interim", e.judged_cells, e.alpha);
  text += fmt::format("# control A/A (k=1 {}): {}\n", e.rule_version >= 3 ? "ideal" : "ideal, replay",
                      !c.aa_run     ? "not run"
                      : !c.aa_formed ? "interval not formed yet (too few rounds)"
                                     : fmt::format("{}, upper bound {:.2f} %",
                                                   c.aa_holds ? "HOLDS" : "FAILED (noise floor)", c.aa_upper_pct));
  for (const auto& [k, power] : c.power)
    text += fmt::format("# control power k={}: x(1+2K) {}, x(1-2K) {}{}\n", k, to_string(power.over.outcome),
                        to_string(power.under.outcome),
                        c.no_speedup.count(k) && k > 1
                            ? fmt::format(", no_speedup {}", to_string(c.no_speedup.at(k)))
                            : std::string());
  text += fmt::format("# control same-node: {}\n", same_node_line(e));
  for (const auto& [k, term] : e.straggler) text += straggler_line(k, term);
  text += fmt::format("# {:<11} {:>3} {:<15} {:>8} {:>9} {:>17} {:>8} {:>7} {:>6}  {:<20} {}\n", "form", "k",
                      "verdict", "error(%)", "signed(%)", "interval(%)", "drift(%)", "rounds", "+need",
                      "reason/explained_by", "localized term (rounds)");
  for (const auto& cell : e.cells) {
    const CellVerdict& v = cell.verdict;
    if (v.outcome == Outcome::not_applicable) {
      text += fmt::format("  {:<11} {:>3} {:<15} {}\n", cell.form, cell.k, to_string(v.outcome),
                          v.not_applicable_reason);
      continue;
    }
    const bool formed = v.reason != InconclusiveReason::too_few_rounds;  // no interval at this α yet
    const std::string why = v.outcome == Outcome::inconclusive ? std::string(to_string(v.reason))
                            : v.explained_by.empty()           ? std::string("-")
                                                               : "explained by " + v.explained_by;
    text += fmt::format(
        "  {:<11} {:>3} {:<15} {:>8.2f} {:>9} {:>17} {:>8.2f} {:>7} {:>6}  {:<20} {}\n", cell.form, cell.k,
        to_string(v.outcome), v.error_pct,
        e.rule_version >= 3 ? fmt::format("{:+.2f}", v.signed_error_pct) : std::string("-"),
        formed ? fmt::format("{:.2f}..{:.2f}", v.error_ci_low_pct, v.error_ci_high_pct) : std::string("not formed"),
        v.drift_pct, v.rounds, v.rounds_needed, why,
        cell.localized ? fmt::format("{} {:+.1f} us ({:+.1f} %)", cell.localized->term, cell.localized->departure_us,
                                     cell.localized->departure_pct)
                       : std::string("not measured"));
  }
  for (const std::string& warning : rounds_warning_lines(e, placements)) text += "# WARNING " + warning + "\n";
  text += "# the answer per TP degree:\n";
  for (const std::string& line : rounds_answer_lines(e)) text += "# " + line + "\n";
  return text;
}

}  // namespace

std::string verdict_summary(const StudyVerdict& verdict) {
  // A study measured in rounds is decided over them alone: its first round's
  // point rule is in report.md as a description, never beside the verdict.
  if (!verdict.rounds) return point_summary(verdict.point);
  return rounds_summary(*verdict.rounds, verdict.rank_placements);
}

}  // namespace tpb
