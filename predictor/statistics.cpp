#include "predictor/statistics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "common/error.hpp"

namespace tpb {
namespace {

void require_non_empty(std::span<const double> sample, const char* what) {
  TPB_CHECK(!sample.empty(), fmt::format("{} of an empty sample", what));
}

double percentile_of_sorted(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

}  // namespace

double percentile(std::span<const double> sample, double q) {
  require_non_empty(sample, "percentile");
  TPB_CHECK(q >= 0.0 && q <= 1.0, fmt::format("percentile q={} outside [0, 1]", q));
  std::vector<double> sorted(sample.begin(), sample.end());
  std::sort(sorted.begin(), sorted.end());
  return percentile_of_sorted(sorted, q);
}

ConfidenceInterval bootstrap_median_ci(std::span<const double> sample, const BootstrapOptions& options) {
  require_non_empty(sample, "bootstrap");
  TPB_CHECK(options.resamples > 0, "bootstrap needs at least one resample");
  TPB_CHECK(options.confidence > 0.0 && options.confidence < 1.0, "bootstrap confidence outside (0, 1)");
  std::mt19937_64 rng(options.seed);
  const std::uint64_t n = sample.size();
  std::vector<double> resample(sample.size());
  std::vector<double> medians;
  medians.reserve(static_cast<std::size_t>(options.resamples));
  for (int r = 0; r < options.resamples; ++r) {
    // Modulo bias is below n / 2^64: negligible for any sample we hold.
    for (auto& value : resample) value = sample[static_cast<std::size_t>(rng() % n)];
    std::sort(resample.begin(), resample.end());
    medians.push_back(percentile_of_sorted(resample, 0.5));
  }
  std::sort(medians.begin(), medians.end());
  const double tail = (1.0 - options.confidence) / 2.0;
  return {percentile_of_sorted(medians, tail), percentile_of_sorted(medians, 1.0 - tail)};
}

double signed_error_pct(double predicted, double measured) {
  TPB_CHECK(measured > 0.0, fmt::format("relative error against a non-positive measurement {}", measured));
  return (predicted - measured) / measured * 100.0;
}

double mape_pct(std::span<const double> predicted, std::span<const double> measured) {
  TPB_CHECK(!predicted.empty() && predicted.size() == measured.size(),
            fmt::format("MAPE needs paired, non-empty samples ({} predicted, {} measured)", predicted.size(),
                        measured.size()));
  double sum = 0.0;
  for (std::size_t i = 0; i < predicted.size(); ++i) sum += std::abs(signed_error_pct(predicted[i], measured[i]));
  return sum / static_cast<double>(predicted.size());
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double normal_quantile(double p) {
  TPB_CHECK(p > 0.0 && p < 1.0, fmt::format("normal quantile of {} outside (0, 1)", p));
  // Bisection on the distribution function: slow but exact to the double's
  // resolution and free of any approximation's error bound.
  double low = -40.0, high = 40.0;
  for (int i = 0; i < 200 && high - low > 1e-13; ++i) {
    const double middle = 0.5 * (low + high);
    (normal_cdf(middle) < p ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

}  // namespace tpb
