#include "predictor/straggler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "common/error.hpp"

namespace tpb {

StragglerTerm straggler_term(const std::vector<StragglerRound>& rounds, double alpha, double kill_switch_pct) {
  TPB_CHECK(!rounds.empty() && !rounds.front().step_us.empty() &&
                rounds.front().rank_collective_us.size() == rounds.front().step_us.size(),
            "straggler term of zero rounds or cells");
  const std::size_t ranks = rounds.front().rank_collective_us.front().size();
  TPB_CHECK(ranks >= 2, fmt::format("straggler term over {} rank(s)", ranks));
  std::vector<double> straggler;
  std::vector<std::vector<double>> slowdown(ranks);
  for (const StragglerRound& round : rounds) {
    const std::size_t cells = round.step_us.size();
    TPB_CHECK(cells == rounds.front().step_us.size() && round.rank_collective_us.size() == cells,
              "straggler rounds with different cells");
    double round_straggler = 0.0;
    std::vector<double> round_slowdown(ranks, 0.0);
    for (std::size_t c = 0; c < cells; ++c) {
      const std::vector<double>& waits = round.rank_collective_us[c];
      TPB_CHECK(waits.size() == ranks && round.step_us[c] > 0.0,
                fmt::format("a cell with {} ranks (expected {}) and a step of {} us", waits.size(), ranks,
                            round.step_us[c]));
      const auto [least, most] = std::minmax_element(waits.begin(), waits.end());
      const double mean = std::accumulate(waits.begin(), waits.end(), 0.0) / static_cast<double>(ranks);
      round_straggler += (mean - *least) / round.step_us[c] * 100.0 / static_cast<double>(cells);
      for (std::size_t r = 0; r < ranks; ++r)
        round_slowdown[r] += (*most - waits[r]) / round.step_us[c] * 100.0 / static_cast<double>(cells);
    }
    straggler.push_back(round_straggler);
    for (std::size_t r = 0; r < ranks; ++r) slowdown[r].push_back(round_slowdown[r]);
  }
  StragglerTerm term;
  term.straggler_pct = median_order_statistic_interval(straggler, alpha);
  double slowest_low = kill_switch_pct / 2.0;
  for (std::size_t r = 0; r < ranks; ++r) {
    term.ranks.push_back({static_cast<int>(r), median_order_statistic_interval(slowdown[r], alpha)});
    const RoundInterval& s = term.ranks.back().slowdown_pct;
    if (s.formed && s.low > slowest_low) {
      slowest_low = s.low;
      term.systematic_rank = static_cast<int>(r);
    }
  }
  return term;
}

}  // namespace tpb
