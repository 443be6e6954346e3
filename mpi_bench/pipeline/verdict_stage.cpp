// verdict: judges the measurement against the registration it ran under, and
// refuses any file where that chain of custody is broken.
#include <fmt/format.h>

#include "common/error.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_rounds.hpp"
#include "predictor/sha256.hpp"
#include "results/custody.hpp"
#include "results/round_records.hpp"
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

std::string rounds_summary(const RoundsEvaluation& e) {
  const RoundsControls& c = e.controls;
  std::string text = fmt::format("# rounds {}, judged cells {}, alpha per interval {:.2g}\n", e.rounds,
                                 e.judged_cells, e.alpha);
  text += fmt::format("# control A/A (k=1 ideal, replay): {}\n",
                      !c.aa_run      ? "not run"
                      : c.aa_holds   ? "HOLDS"
                      : c.aa_formed  ? "FAILED (noise floor)"
                                     : "interval not formed yet (too few rounds)");
  for (const auto& [k, power] : c.power)
    text += fmt::format("# control power k={}: x(1+2K) {}, x(1-2K) {}{}\n", k, to_string(power.over.outcome),
                        to_string(power.under.outcome),
                        c.no_speedup.count(k) && k > 1
                            ? fmt::format(", no_speedup {}", to_string(c.no_speedup.at(k)))
                            : std::string());
  text += fmt::format("# control same-node: {}\n",
                      !c.same_node_run ? "not run"
                                       : fmt::format("spread {:.1f} % (upper {}){}", c.same_node_spread_pct.estimate,
                                                     c.same_node_spread_pct.formed
                                                         ? fmt::format("{:.1f} %", c.same_node_spread_pct.high)
                                                         : std::string("not formed"),
                                                     c.rank_imbalance ? ": RANK IMBALANCE" : ""));
  text += fmt::format("# {:<11} {:>3} {:<15} {:>8} {:>17} {:>8} {:>7} {:>6}  {}\n", "form", "k", "verdict",
                      "error(%)", "interval(%)", "drift(%)", "rounds", "+need", "reason");
  for (const auto& cell : e.cells) {
    const CellVerdict& v = cell.verdict;
    if (v.outcome == Outcome::not_applicable) {
      text += fmt::format("  {:<11} {:>3} {:<15} {}\n", cell.form, cell.k, to_string(v.outcome),
                          v.not_applicable_reason);
      continue;
    }
    const bool formed = v.reason != InconclusiveReason::too_few_rounds;  // no interval at this α yet
    text += fmt::format("  {:<11} {:>3} {:<15} {:>8.2f} {:>17} {:>8.2f} {:>7} {:>6}  {}\n", cell.form, cell.k,
                        to_string(v.outcome), v.error_pct,
                        formed ? fmt::format("{:.2f}..{:.2f}", v.error_ci_low_pct, v.error_ci_high_pct)
                               : std::string("not formed"),
                        v.drift_pct, v.rounds, v.rounds_needed, to_string(v.reason));
  }
  return text;
}

}  // namespace

std::string verdict_summary(const StudyVerdict& verdict) {
  if (!verdict.rounds) return point_summary(verdict.point);
  return "# single pass (first round), point rule, descriptive:\n" + point_summary(verdict.point) +
         "# decision over rounds (the verdict):\n" + rounds_summary(*verdict.rounds);
}

}  // namespace tpb
