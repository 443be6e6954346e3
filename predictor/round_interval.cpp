#include "predictor/round_interval.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "predictor/random64.hpp"
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

double bonferroni_alpha(double family_alpha, int cells, int checkpoints) {
  require_alpha(family_alpha);
  TPB_CHECK(cells > 0 && checkpoints > 0,
            fmt::format("Bonferroni split over {} cells and {} checkpoints", cells, checkpoints));
  return family_alpha / (static_cast<double>(cells) * static_cast<double>(checkpoints));
}

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

std::vector<double> block_bootstrap_medians(std::span<const double> values, const BlockBootstrapOptions& options) {
  TPB_CHECK(!values.empty(), "bootstrap of zero rounds");
  TPB_CHECK(options.resamples > 0 && options.block_rounds >= 0,
            fmt::format("block bootstrap with {} resamples of {}-round blocks", options.resamples,
                        options.block_rounds));
  const std::size_t n = values.size();
  const auto block = static_cast<std::size_t>(
      options.block_rounds > 0 ? options.block_rounds : std::ceil(std::cbrt(static_cast<double>(n))));
  const std::size_t block_starts = n >= block ? n - block + 1 : 1;
  SplitMix64 rng(options.seed);
  std::vector<double> resample;
  resample.reserve(n + block);
  std::vector<double> medians;
  medians.reserve(static_cast<std::size_t>(options.resamples));
  for (int r = 0; r < options.resamples; ++r) {
    resample.clear();
    while (resample.size() < n) {
      const auto start = static_cast<std::size_t>(uniform_below(rng, block_starts));
      for (std::size_t i = start; i < std::min(start + block, n); ++i) resample.push_back(values[i]);
    }
    resample.resize(n);
    medians.push_back(median(resample));
  }
  std::sort(medians.begin(), medians.end());
  return medians;
}

double bootstrap_p_exceeds(std::span<const double> values, double threshold, const BlockBootstrapOptions& options) {
  const std::vector<double> medians = block_bootstrap_medians(values, options);
  const auto first_above = std::upper_bound(medians.begin(), medians.end(), threshold);
  return static_cast<double>(medians.end() - first_above) / static_cast<double>(medians.size());
}

}  // namespace tpb
