// Median, percentiles, signed error and MAPE by hand; the bootstrap on
// distributions whose median is known.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/error.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
namespace {

TEST(Statistics, MedianOfOddAndEvenSamples) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_THROW(median(std::vector<double>{}), Error);
}

TEST(Statistics, PercentileInterpolatesLinearly) {
  EXPECT_DOUBLE_EQ(percentile(std::vector<double>{5, 1, 4, 2, 3}, 0.25), 2.0);
  EXPECT_DOUBLE_EQ(percentile(std::vector<double>{20, 10}, 0.1), 11.0);
  EXPECT_DOUBLE_EQ(percentile(std::vector<double>{20, 10}, 1.0), 20.0);
}

TEST(Statistics, SlowestRankPerIterationTakesRowMaxima) {
  // 3 iterations × 2 ranks, row-major.
  EXPECT_EQ(slowest_rank_per_iteration(std::vector<double>{1, 2, 5, 3, 4, 4}, 2), (std::vector<double>{2, 5, 4}));
  EXPECT_THROW(slowest_rank_per_iteration(std::vector<double>{1, 2, 3}, 2), Error);
}

TEST(Statistics, SlowestRankOfEachGroupIsOneColumnPerGroup) {
  // 2 iterations × 4 ranks in groups of 2: iterations × 2 groups.
  EXPECT_EQ(slowest_rank_of_each_group(std::vector<double>{1, 2, 7, 3, 6, 4, 4, 5}, 4, 2),
            (std::vector<double>{2, 7, 6, 5}));
  EXPECT_EQ(slowest_rank_of_each_group(std::vector<double>{1, 2, 3}, 3, 1), (std::vector<double>{1, 2, 3}));
  EXPECT_THROW(slowest_rank_of_each_group(std::vector<double>{1, 2, 3}, 3, 2), Error);
}

TEST(Statistics, SignedErrorIsRelativeToTheMeasurement) {
  EXPECT_DOUBLE_EQ(signed_error_pct(110, 100), 10.0);
  EXPECT_DOUBLE_EQ(signed_error_pct(75, 100), -25.0);
}

TEST(Statistics, MapeAveragesAbsoluteErrors) {
  EXPECT_DOUBLE_EQ(mape_pct(std::vector<double>{110, 75}, std::vector<double>{100, 100}), 17.5);
  EXPECT_THROW(mape_pct(std::vector<double>{1}, std::vector<double>{1, 2}), Error);
}

TEST(Bootstrap, ConstantSampleHasAZeroWidthInterval) {
  const auto ci = bootstrap_median_ci(std::vector<double>(50, 7.0));
  EXPECT_DOUBLE_EQ(ci.low, 7.0);
  EXPECT_DOUBLE_EQ(ci.high, 7.0);
}

TEST(Bootstrap, SameSeedSameIntervalOtherSeedOtherInterval) {
  std::vector<double> sample;
  for (int i = 0; i < 100; ++i) sample.push_back(std::sin(i) * 10 + 100);
  const auto a = bootstrap_median_ci(sample, {0.95, 2000, 1});
  const auto b = bootstrap_median_ci(sample, {0.95, 2000, 1});
  const auto c = bootstrap_median_ci(sample, {0.95, 2000, 2});
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_TRUE(a.low != c.low || a.high != c.high);
  EXPECT_LE(a.low, median(sample));
  EXPECT_GE(a.high, median(sample));
}

// Fraction of `trials` samples of size n whose 95 % interval covers the true median.
template <typename Distribution>
double coverage(Distribution distribution, double true_median, int n, int trials, double* mean_width) {
  std::mt19937_64 rng(12345);
  int covered = 0;
  double width = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> sample(static_cast<std::size_t>(n));
    for (auto& x : sample) x = distribution(rng);
    const auto ci = bootstrap_median_ci(sample, {0.95, 500, static_cast<std::uint64_t>(t)});
    covered += ci.low <= true_median && true_median <= ci.high;
    width += ci.high - ci.low;
  }
  *mean_width = width / trials;
  return static_cast<double>(covered) / trials;
}

TEST(Bootstrap, NormalMedianCoverageAndWidthMatchTheory) {
  // Median of N(50, 5²), n = 201: asymptotic sd = sqrt(pi/2)·5/sqrt(201) = 0.442,
  // so a 95 % interval is ~1.73 wide; a sound interval covers 50 about 95 % of
  // the time (binomial sd over 200 trials: 1.5 %).
  double width = 0;
  const double covered = coverage(std::normal_distribution<double>(50, 5), 50.0, 201, 200, &width);
  EXPECT_GE(covered, 0.88);
  EXPECT_LE(covered, 0.995);
  const double theory = 2 * 1.96 * std::sqrt(M_PI / 2) * 5 / std::sqrt(201.0);
  EXPECT_GT(width, 0.6 * theory);
  EXPECT_LT(width, 1.6 * theory);
}

TEST(Bootstrap, SkewedExponentialMedianIsCovered) {
  // Exp(1) has median ln 2; step times are right-skewed like this.
  double width = 0;
  const double covered = coverage(std::exponential_distribution<double>(1.0), std::log(2.0), 151, 200, &width);
  EXPECT_GE(covered, 0.88);
  EXPECT_LE(covered, 0.995);
}

}  // namespace
}  // namespace tpb
