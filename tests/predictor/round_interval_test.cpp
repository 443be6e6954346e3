// Order-statistic intervals by hand, their coverage on skewed rounds whose
// median is known, the Bonferroni split and the block bootstrap.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "predictor/random64.hpp"
#include "predictor/round_interval.hpp"

namespace tpb {
namespace {

TEST(BonferroniAlpha, SplitsOverCellsAndCheckpoints) {
  EXPECT_DOUBLE_EQ(bonferroni_alpha(0.05, 10, 3), 0.05 / 30);
  EXPECT_THROW(bonferroni_alpha(0.05, 0, 3), Error);
  EXPECT_THROW(bonferroni_alpha(1.5, 1, 1), Error);
}

TEST(MedianOrderStatisticInterval, TenRoundsAtNinetyFivePercentUseSecondAndNinthSmallest) {
  // P(Bin(10, ½) ≤ 1) = 11/1024 ≤ 0.025 < P(Bin(10, ½) ≤ 2) = 56/1024, so l = 2.
  const std::vector<double> rounds = {9, 1, 8, 2, 7, 3, 6, 4, 5, 10};
  const RoundInterval interval = median_order_statistic_interval(rounds, 0.05);
  ASSERT_TRUE(interval.formed);
  EXPECT_EQ(interval.rounds, 10);
  EXPECT_DOUBLE_EQ(interval.estimate, 5.5);
  EXPECT_DOUBLE_EQ(interval.low, 2);
  EXPECT_DOUBLE_EQ(interval.high, 9);
  EXPECT_NEAR(interval.coverage, 1.0 - 22.0 / 1024.0, 1e-12);
}

TEST(MedianOrderStatisticInterval, TooFewRoundsForTheConfidence) {
  // Five rounds: even [min, max] covers only 1 − 2/32 = 93.75 %.
  EXPECT_FALSE(median_order_statistic_interval(std::vector<double>{1, 2, 3, 4, 5}, 0.05).formed);
  EXPECT_TRUE(median_order_statistic_interval(std::vector<double>{1, 2, 3, 4, 5, 6}, 0.05).formed);
  EXPECT_EQ(min_rounds_for_median_interval(0.05), 6);
  // 10 cells × 3 checkpoints: 2·(½)^n ≤ 0.05/30 first at n = 11.
  EXPECT_EQ(min_rounds_for_median_interval(0.05 / 30), 11);
  EXPECT_THROW(median_order_statistic_interval(std::vector<double>{}, 0.05), Error);
}

TEST(MedianOrderStatisticInterval, CoversTheExponentialMedianAtNominalLevel) {
  // 2000 repetitions of 10 rounds from Exp(1), whose median is ln 2. The
  // interval's exact coverage is 97.85 % for any continuous distribution;
  // the requirement is at least 94 % at a nominal 95 %.
  constexpr int kRepetitions = 2000;
  SplitMix64 rng(12);
  int covered = 0;
  std::vector<double> rounds(10);
  for (int rep = 0; rep < kRepetitions; ++rep) {
    for (double& value : rounds) value = -std::log(1.0 - uniform_unit(rng));
    const RoundInterval interval = median_order_statistic_interval(rounds, 0.05);
    ASSERT_TRUE(interval.formed);
    covered += interval.low <= std::log(2.0) && std::log(2.0) <= interval.high;
  }
  const double coverage = static_cast<double>(covered) / kRepetitions;
  RecordProperty("coverage_pct", std::to_string(coverage * 100));
  std::printf("order-statistic median interval, 10 rounds of Exp(1), nominal 95 %%: coverage %.2f %% of %d\n",
              coverage * 100, kRepetitions);
  EXPECT_GE(coverage, 0.94);
}

TEST(BlockBootstrap, SameSeedSameMediansAndPExceedsAtTheExtremes) {
  const std::vector<double> rounds = {3, 9, 4, 12, 5, 8, 6, 11, 7, 10};
  BlockBootstrapOptions options;
  options.resamples = 500;
  EXPECT_EQ(block_bootstrap_medians(rounds, options), block_bootstrap_medians(rounds, options));
  EXPECT_DOUBLE_EQ(bootstrap_p_exceeds(rounds, 2.0, options), 1.0);
  EXPECT_DOUBLE_EQ(bootstrap_p_exceeds(rounds, 13.0, options), 0.0);
  const double middle = bootstrap_p_exceeds(rounds, 7.5, options);
  EXPECT_GT(middle, 0.2);
  EXPECT_LT(middle, 0.8);
}

TEST(BlockBootstrap, ResamplesAreMadeOfRoundsFromTheSample) {
  const std::vector<double> rounds = {1, 2, 3, 4, 5, 6, 7, 8};
  BlockBootstrapOptions options;
  options.resamples = 200;
  options.block_rounds = 3;
  for (const double m : block_bootstrap_medians(rounds, options)) {
    EXPECT_GE(m, 1.0);
    EXPECT_LE(m, 8.0);
    EXPECT_DOUBLE_EQ(m * 2, std::round(m * 2));  // a round value or the mean of two
  }
}

}  // namespace
}  // namespace tpb
