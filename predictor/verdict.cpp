#include "predictor/verdict.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/error.hpp"
#include "predictor/model_forms.hpp"

namespace tpb {

std::vector<KillSwitch> kill_switch_table(double threshold_pct, bool with_transfer, bool with_roofline) {
  if (!std::isfinite(threshold_pct) || threshold_pct <= 0.0 || threshold_pct > 1000.0)
    throw UsageError(fmt::format("--kill-switch: '{}' is not a MAPE threshold in percent (0 < PCT <= 1000)",
                                 threshold_pct));
  std::vector<KillSwitch> table;
  for (const auto& form : registered_forms(with_transfer, with_roofline)) table.push_back({std::string(form.name), threshold_pct});
  return table;
}

double kill_switch_for(const std::vector<KillSwitch>& table, std::string_view form) {
  for (const auto& row : table)
    if (row.form == form) return row.mape_threshold_pct;
  throw_error("tpbench", 1, fmt::format("no kill switch registered for model form '{}'", form), __FILE__, __LINE__);
}

std::string_view to_string(Verdict verdict) { return verdict == Verdict::holds ? "HOLDS" : "FALSIFIED"; }

Verdict judge(double mape_pct, double threshold_pct) {
  TPB_CHECK(std::isfinite(mape_pct), "verdict on a non-finite MAPE");
  return mape_pct <= threshold_pct ? Verdict::holds : Verdict::falsified;
}

DegreeJudgement judge_degree(std::string form, int k, std::span<const CellComparison> cells, double threshold_pct) {
  TPB_CHECK(!cells.empty(), fmt::format("no cells to judge for form {} at k={}", form, k));
  std::vector<double> predicted;
  std::vector<double> measured;
  for (const auto& cell : cells) {
    predicted.push_back(cell.predicted_us);
    measured.push_back(cell.measured_us);
  }
  const double mape = mape_pct(predicted, measured);
  return {std::move(form), k, mape, threshold_pct, judge(mape, threshold_pct)};
}

Localization localize(std::span<const TermComparison> terms, double measured_t_step_us) {
  TPB_CHECK(!terms.empty(), "localization needs at least one term");
  TPB_CHECK(measured_t_step_us > 0.0, "localization needs a positive measured t_step");
  const TermComparison* largest = &terms.front();
  for (const auto& term : terms)
    if (std::abs(term.measured_us - term.predicted_us) > std::abs(largest->measured_us - largest->predicted_us))
      largest = &term;
  const double departure = largest->measured_us - largest->predicted_us;
  return {largest->term, largest->measured_us, largest->predicted_us, departure,
          departure / measured_t_step_us * 100.0};
}

}  // namespace tpb
