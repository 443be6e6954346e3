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
#include "results/verdict_table.hpp"

namespace tpb {

Registration judgeable_registration(const H5File& file, const DesignClaims& claims) {
  const Registration r = checked_registration(file);
  if (claims.kill_switch_pct)
    for (const auto& row : r.kill_switches)
      if (row.mape_threshold_pct != *claims.kill_switch_pct)
        throw UsageError(fmt::format("--kill-switch: {} % differs from the {} % registered for {}; thresholds are "
                                     "fixed at registration",
                                     *claims.kill_switch_pct, row.mape_threshold_pct, row.form));
  const std::string difference = design_claims_difference(r.design, claims);
  if (!difference.empty()) throw UsageError(difference);
  return r;
}

StudyVerdict verdict_stage(H5File& file, const DesignClaims& claims) {
  const Registration r = judgeable_registration(file, claims);
  StudyVerdict verdict;
  verdict.point = evaluate_study(r, read_measured_cells(file, r.grid), registered_bootstrap(r));
  write_verdicts(file, verdict.point, read_prereg(file).sha256);
  if (has_rounds(file)) {
    verdict.rounds = evaluate_rounds(r, read_round_observations(file, r.grid));
    verdict.grid = r.grid;
    verdict.stop_reason = read_rounds_stop_reason(file);
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

std::string rounds_summary(const StudyVerdict& v) {
  const RoundsEvaluation& e = *v.rounds;
  std::string text = verdict_table(e, v.grid, TableStyle::console);
  for (const std::string& note : verdict_notes(e)) text += "# " + note + "\n";
  if (!v.stop_reason.empty()) text += "# ENDED EARLY by the " + v.stop_reason + "\n";
  for (const std::string& warning : rounds_warning_lines(e, v.rank_placements)) text += "# WARNING " + warning + "\n";
  return text;
}

}  // namespace

std::string verdict_summary(const StudyVerdict& verdict) {
  // A study measured in rounds is decided over them alone: its first round's
  // point rule is in report.md as a description, never beside the verdict.
  if (!verdict.rounds) return point_summary(verdict.point);
  return rounds_summary(verdict);
}

}  // namespace tpb
