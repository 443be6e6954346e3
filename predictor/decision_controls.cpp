#include "predictor/decision_controls.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "predictor/statistics.hpp"

namespace tpb {

AaControl aa_control(std::vector<AaCell> cells) {
  AaControl control;
  control.run = !cells.empty();
  control.holds = control.run;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    control.holds = control.holds && cells[i].judgement.outcome == Outcome::holds;
    control.falsified = control.falsified || cells[i].judgement.outcome == Outcome::falsified;
    if (control.worst_cell < 0 || std::abs(cells[i].judgement.median_log) >
                                      std::abs(cells[static_cast<std::size_t>(control.worst_cell)].judgement.median_log))
      control.worst_cell = static_cast<int>(i);
  }
  control.cells = std::move(cells);
  return control;
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

}  // namespace tpb
