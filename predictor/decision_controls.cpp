#include "predictor/decision_controls.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
bool aa_control_holds(const std::vector<std::vector<double>>& aa_paired_errors, const DecisionRule& rule,
                      double alpha) {
  TPB_CHECK(!aa_paired_errors.empty(), "the A/A control has no cells");
  return std::all_of(aa_paired_errors.begin(), aa_paired_errors.end(), [&](const std::vector<double>& errors) {
    return decide_on_interval(median_order_statistic_interval(errors, alpha), rule.kill_switch_pct).outcome ==
           Outcome::holds;
  });
}

bool aa_control_formed(const std::vector<std::vector<double>>& aa_paired_errors, double alpha) {
  return std::all_of(aa_paired_errors.begin(), aa_paired_errors.end(), [&](const std::vector<double>& errors) {
    return median_order_statistic_interval(errors, alpha).formed;
  });
}

PowerCheck power_check(const std::vector<std::vector<double>>& measured_us, const DecisionRule& rule, double alpha) {
  TPB_CHECK(measured_us.size() >= 2 && !measured_us.front().empty(),
            fmt::format("power check of {} round(s): it needs two", measured_us.size()));
  const double twice_kill = 2.0 * rule.kill_switch_pct / 100.0;
  TPB_CHECK(twice_kill < 1.0,
            fmt::format("power check needs a kill switch below 50 %, not {} %", rule.kill_switch_pct));
  const std::size_t cells = measured_us.front().size();
  std::vector<double> over_errors, under_errors;
  for (std::size_t r = 1; r < measured_us.size(); ++r) {
    const std::vector<double>& previous = measured_us[r - 1];
    const std::vector<double>& current = measured_us[r];
    TPB_CHECK(current.size() == cells, fmt::format("a round holds {} cells, the first {}", current.size(), cells));
    std::vector<double> over(cells), under(cells);
    for (std::size_t cell = 0; cell < cells; ++cell) {
      over[cell] = previous[cell] * (1.0 + twice_kill);
      under[cell] = previous[cell] * (1.0 - twice_kill);
    }
    over_errors.push_back(mape_pct(over, current));
    under_errors.push_back(mape_pct(under, current));
  }
  return {decide_on_interval(median_order_statistic_interval(over_errors, alpha), rule.kill_switch_pct),
          decide_on_interval(median_order_statistic_interval(under_errors, alpha), rule.kill_switch_pct)};
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
  gates.rank_imbalance = k > 1 && controls.rank_imbalance;
  gates.underpowered =
      std::find(controls.unpowered_k.begin(), controls.unpowered_k.end(), k) != controls.unpowered_k.end();
  return gates;
}

}  // namespace tpb
