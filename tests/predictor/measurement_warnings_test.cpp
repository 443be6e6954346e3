// pyperf-style warnings on simulated conditions whose spread is known.
#include "predictor/measurement_warnings.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/error.hpp"

namespace tpb {
namespace {

// `rounds` rounds of `per_round` samples: each round's level times a small
// within-round jitter (±1 %), deterministic.
std::vector<double> rounds_at(const std::vector<double>& levels, std::size_t per_round, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> jitter(0.99, 1.01);
  std::vector<double> values;
  for (double level : levels)
    for (std::size_t i = 0; i < per_round; ++i) values.push_back(level * jitter(rng));
  return values;
}

TEST(MeasurementWarnings, SteadyRoundsWarnOfNothing) {
  const auto s = condition_stability(rounds_at(std::vector<double>(10, 100.0), 6, 1), 10);
  EXPECT_LT(s.cv_pct, 1.0);
  EXPECT_EQ(s.outliers, 0u);
  EXPECT_EQ(s.samples, 60u);
  EXPECT_FALSE(s.unstable);
  EXPECT_FALSE(s.spiky);
}

// Rounds alternating 80 and 120: a CV of about 21 % (sample standard
// deviation 21.1 over a mean of 100), above pyperf's 10 %.
TEST(MeasurementWarnings, RoundsThatWanderAreUnstable) {
  std::vector<double> levels;
  for (int r = 0; r < 10; ++r) levels.push_back(r % 2 ? 120.0 : 80.0);
  const auto s = condition_stability(rounds_at(levels, 6, 2), 10);
  EXPECT_NEAR(s.cv_pct, 21.1, 0.5);
  EXPECT_TRUE(s.unstable);
}

// 4 of 60 samples tripled (6.7 % > 5 %) are counted as outliers, and kept:
// the round medians barely move, so the condition is spiky but not unstable.
TEST(MeasurementWarnings, FrequentSpikesAreCountedNotDropped) {
  std::vector<double> values = rounds_at(std::vector<double>(10, 100.0), 6, 3);
  for (std::size_t i : {5u, 17u, 33u, 50u}) values[i] *= 3.0;
  const auto s = condition_stability(values, 10);
  EXPECT_EQ(s.outliers, 4u);
  EXPECT_EQ(s.samples, 60u);
  EXPECT_TRUE(s.spiky);
  EXPECT_FALSE(s.unstable);
  // Two spikes (3.3 %) are below the 5 % share.
  std::vector<double> fewer = rounds_at(std::vector<double>(10, 100.0), 6, 3);
  fewer[5] *= 3.0;
  fewer[40] *= 3.0;
  EXPECT_FALSE(condition_stability(fewer, 10).spiky);
}

TEST(MeasurementWarnings, SamplesThatDoNotFillTheRoundsAreRefused) {
  EXPECT_THROW(condition_stability(std::vector<double>(7, 1.0), 2), Error);
  EXPECT_THROW(condition_stability(std::vector<double>{}, 1), Error);
}

}  // namespace
}  // namespace tpb
