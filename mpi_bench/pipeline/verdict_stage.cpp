// verdict: judges the measurement against the registration it ran under, and
// refuses any file where that chain of custody is broken.
#include <fmt/format.h>

#include "common/error.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "predictor/sha256.hpp"
#include "results/custody.hpp"

namespace tpb {

std::vector<FormDegreeResult> verdict_stage(H5File& file, std::optional<double> kill_switch_pct) {
  const Registration r = checked_registration(file);
  if (kill_switch_pct)
    for (const auto& row : r.kill_switches)
      if (row.mape_threshold_pct != *kill_switch_pct)
        throw UsageError(fmt::format("--kill-switch: {} % differs from the {} % registered for {}; thresholds are "
                                     "fixed at registration",
                                     *kill_switch_pct, row.mape_threshold_pct, row.form));
  const std::vector<FormDegreeResult> results =
      evaluate_study(r, read_measured_cells(file, r.grid), registered_bootstrap(r));
  write_verdicts(file, results, read_prereg(file).sha256);
  return results;
}

}  // namespace tpb

namespace tpb {

std::string verdict_summary(const std::vector<FormDegreeResult>& results) {
  std::string text = fmt::format("# {:<11} {:>3} {:>9} {:>11} {:<10}  {}\n", "form", "k", "MAPE(%)", "kill(%)",
                                 "verdict", "localizing term (grid mean)");
  for (const auto& r : results)
    text += fmt::format("  {:<11} {:>3} {:>9.2f} {:>11.2f} {:<10}  {} {:+.1f} us ({:+.1f} % of t_step)\n",
                        r.judgement.form, r.judgement.k, r.judgement.mape_pct, r.judgement.threshold_pct,
                        to_string(r.judgement.verdict), r.culprit.term, r.culprit.departure_us,
                        r.culprit.departure_pct);
  return text;
}

}  // namespace tpb
