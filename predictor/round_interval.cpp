#include "predictor/round_interval.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
namespace {

void require_alpha(double alpha) {
  TPB_CHECK(alpha > 0.0 && alpha < 1.0, fmt::format("alpha {} outside (0, 1)", alpha));
}

// P(Bin(n, ½) ≤ j), summed in log space so that large n does not underflow.
double binomial_half_cdf(int n, int j) {
  double total = 0.0;
  const double log_half_n = -static_cast<double>(n) * std::log(2.0);
  for (int i = 0; i <= j; ++i)
    total += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + log_half_n);
  return total;
}

}  // namespace

RoundInterval median_order_statistic_interval(std::span<const double> values, double alpha) {
  require_alpha(alpha);
  TPB_CHECK(!values.empty(), "interval of zero rounds");
  const int n = static_cast<int>(values.size());
  RoundInterval interval;
  interval.rounds = n;
  interval.estimate = median(values);
  // Largest l (1-based) whose two tails, each P(Bin(n, ½) ≤ l − 1), leave alpha.
  int l = 0;
  double tail = 0.0;
  for (int candidate = 1; candidate <= (n + 1) / 2; ++candidate) {
    const double candidate_tail = binomial_half_cdf(n, candidate - 1);
    if (2.0 * candidate_tail > alpha) break;
    l = candidate;
    tail = candidate_tail;
  }
  if (l == 0) return interval;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  interval.formed = true;
  interval.low = sorted[static_cast<std::size_t>(l - 1)];
  interval.high = sorted[static_cast<std::size_t>(n - l)];
  interval.coverage = 1.0 - 2.0 * tail;
  return interval;
}

int min_rounds_for_median_interval(double alpha) {
  require_alpha(alpha);
  int n = 1;
  while (2.0 * std::pow(0.5, n) > alpha) ++n;
  return n;
}

}  // namespace tpb
