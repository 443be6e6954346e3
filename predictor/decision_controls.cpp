#include "predictor/decision_controls.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
AaControl aa_control(const std::vector<CellEvidence>& aa_cells, const DecisionRule& rule, double alpha) {
  TPB_CHECK(!aa_cells.empty(), "the A/A control has no cells");
  AaControl control;
  for (const CellEvidence& cell : aa_cells) {
    const CellVerdict verdict = judge_cell(cell, CellGates{}, rule, alpha);
    control.holds = control.holds && verdict.paired_outcome == Outcome::holds;
    control.formed = control.formed && verdict.reason != InconclusiveReason::too_few_rounds;
    control.upper_pct = std::max(control.upper_pct, verdict.error_ci_high_pct);
  }
  return control;
}

PowerCheck power_check(const std::vector<std::vector<double>>& measured_us, const DecisionRule& rule, double alpha) {
  TPB_CHECK(measured_us.size() >= 2 && !measured_us.front().empty(),
            fmt::format("power check of {} round(s): it needs two", measured_us.size()));
  const double twice_kill = 2.0 * rule.kill_switch_pct / 100.0;
  TPB_CHECK(twice_kill < 1.0,
            fmt::format("power check needs a kill switch below 50 %, not {} %", rule.kill_switch_pct));
  const std::size_t cells = measured_us.front().size();
  std::vector<double> over_errors, under_errors;  // version 2: per-round MAPE
  LogRatios over_ratios, under_ratios;            // version 3
  for (std::size_t r = 1; r < measured_us.size(); ++r) {
    const std::vector<double>& previous = measured_us[r - 1];
    const std::vector<double>& current = measured_us[r];
    TPB_CHECK(current.size() == cells, fmt::format("a round holds {} cells, the first {}", current.size(), cells));
    std::vector<double> over(cells), under(cells), over_log(cells), under_log(cells);
    for (std::size_t cell = 0; cell < cells; ++cell) {
      over[cell] = previous[cell] * (1.0 + twice_kill);
      under[cell] = previous[cell] * (1.0 - twice_kill);
      over_log[cell] = std::log(current[cell] / over[cell]);
      under_log[cell] = std::log(current[cell] / under[cell]);
    }
    over_errors.push_back(mape_pct(over, current));
    under_errors.push_back(mape_pct(under, current));
    over_ratios.push_back(std::move(over_log));
    under_ratios.push_back(std::move(under_log));
  }
  const double kill = rule.kill_switch_pct;
  if (rule.version == 2)
    return {decide_on_interval(median_order_statistic_interval(over_errors, alpha), kill),
            decide_on_interval(median_order_statistic_interval(under_errors, alpha), kill)};
  const RoundResampling resampling{rule.bootstrap.resamples, rule.bootstrap.seed};
  return {decide_on_interval(form_error_interval(over_ratios, alpha, resampling, kill).unsigned_error, kill),
          decide_on_interval(form_error_interval(under_ratios, alpha, resampling, kill).unsigned_error, kill)};
}

RoundInterval same_node_spread_interval(const std::vector<std::vector<double>>& rank_times_us, double alpha) {
  TPB_CHECK(!rank_times_us.empty(), "same-node spread of zero rounds");
  std::vector<double> spreads;
  for (const auto& ranks : rank_times_us) {
    TPB_CHECK(ranks.size() >= 2, fmt::format("same-node spread over {} rank(s)", ranks.size()));
    const auto [low, high] = std::minmax_element(ranks.begin(), ranks.end());
    const double middle = median(ranks);
    TPB_CHECK(middle > 0.0, fmt::format("same-node spread around a median of {} us", middle));
    spreads.push_back((*high - *low) / middle * 100.0);
  }
  return median_order_statistic_interval(spreads, alpha);
}

bool rank_imbalance(const RoundInterval& spread, double kill_switch_pct) {
  return !spread.formed || spread.high > kill_switch_pct / 2.0;
}

bool k_has_power(int k, const PowerCheck& power, Outcome no_speedup_outcome) {
  return power.passes() && (k == 1 || no_speedup_outcome == Outcome::falsified);
}

CellGates gates_for(int k, const StudyControls& controls) {
  CellGates gates;
  gates.noise_floor = !controls.aa_holds;
  gates.aa_upper_pct = controls.aa_upper_pct;
  gates.rank_imbalance = k > 1 && controls.rank_imbalance;
  gates.underpowered =
      std::find(controls.unpowered_k.begin(), controls.unpowered_k.end(), k) != controls.unpowered_k.end();
  return gates;
}

}  // namespace tpb
