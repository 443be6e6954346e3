// The fixed generator against SplitMix64's published reference stream, a
// golden visiting order, Fisher–Yates uniformity, and A-B-B-A against a
// linear drift.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "predictor/random64.hpp"
#include "predictor/visit_order.hpp"
#include "sim_random.hpp"

namespace tpb {
namespace {

TEST(SplitMix64, MatchesTheReferenceStream) {
  // First outputs of Vigna's splitmix64.c seeded with 1234567.
  SplitMix64 rng(1234567);
  const std::array<std::uint64_t, 5> expected = {6457827717110365317ULL, 3203168211198807973ULL,
                                                 9817491932198370423ULL, 4593380528125082431ULL,
                                                 16408922859458223821ULL};
  for (const std::uint64_t value : expected) EXPECT_EQ(rng.next(), value);
}

TEST(SplitMix64, UniformBelowStaysInRangeAndUnitInterval) {
  SplitMix64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    EXPECT_LT(uniform_below(rng, 3), 3u);
    const double u = sim::uniform_unit(rng);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(VisitOrder, GoldenOrderForASealedSeed) {
  // Any platform, any standard library: seed 42, 8 conditions, 3 rounds.
  // An independent Python transcription of SplitMix64 + Fisher–Yates with
  // the same rejection rule draws the same three orders.
  const std::vector<std::vector<std::size_t>> golden = {
      {3, 1, 6, 2, 4, 0, 7, 5}, {0, 1, 3, 7, 5, 2, 6, 4}, {7, 2, 0, 3, 1, 6, 5, 4}};
  EXPECT_EQ(round_visit_orders(8, 3, 42), golden);
}

TEST(VisitOrder, EveryRoundIsAPermutation) {
  for (const auto& order : round_visit_orders(13, 20, 2026)) {
    std::vector<bool> seen(13, false);
    for (const std::size_t condition : order) {
      ASSERT_LT(condition, 13u);
      EXPECT_FALSE(seen[condition]);
      seen[condition] = true;
    }
  }
}

TEST(VisitOrder, FisherYatesPlacesEachConditionUniformly) {
  // 4 conditions, 40000 draws: each (condition, position) count is
  // Binomial(40000, 1/4), sd ≈ 87; 5 sd is a bound a correct shuffle misses
  // with probability below 1e-5 over all 16 counts.
  constexpr int kDraws = 40000;
  SplitMix64 rng(99);
  std::array<std::array<int, 4>, 4> counts{};
  for (int d = 0; d < kDraws; ++d) {
    const auto order = fisher_yates_order(4, rng);
    for (std::size_t position = 0; position < 4; ++position) ++counts[order[position]][position];
  }
  const double expected = kDraws / 4.0;
  const double sd = std::sqrt(kDraws * 0.25 * 0.75);
  for (const auto& row : counts)
    for (const int count : row) EXPECT_NEAR(count, expected, 5 * sd);
}

// Mean time of each block when `blocks` blocks of `visits` visits each run
// for `rounds` rounds, a visit at execution index t taking 100 + 0.5·t µs.
std::vector<double> block_means_under_linear_drift(std::size_t blocks, int visits, int rounds, bool alternate) {
  std::vector<double> sums(blocks, 0.0);
  double t = 0;
  for (int r = 0; r < rounds; ++r)
    for (const std::size_t block : alternate ? abba_block_order(blocks, r) : abba_block_order(blocks, 0))
      for (int v = 0; v < visits; ++v) sums[block] += 100.0 + 0.5 * t++;
  for (double& sum : sums) sum /= visits * rounds;
  return sums;
}

TEST(AbbaOrder, AlternatesForwardAndReversed) {
  EXPECT_EQ(abba_block_order(2, 0), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(abba_block_order(2, 1), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(abba_block_order(3, 3), (std::vector<std::size_t>{2, 1, 0}));
}

TEST(AbbaOrder, CancelsALinearDrift) {
  for (const std::size_t blocks : {2u, 3u, 5u}) {
    const auto abba = block_means_under_linear_drift(blocks, 7, 6, true);
    for (const double mean : abba) EXPECT_NEAR(mean, abba.front(), 1e-9) << blocks << " blocks";
    // The same drift in a fixed block order makes the last block the slowest.
    const auto fixed = block_means_under_linear_drift(blocks, 7, 6, false);
    EXPECT_GT(fixed.back() - fixed.front(), 1.0) << blocks << " blocks";
  }
}

TEST(BlockedOrder, GoldenOrderForASealedSeed) {
  // Blocks {0, 2, 5}, {1, 4} and {3, 6}, seed 7: A-B-C, C-B-A, A-B-C, each
  // block shuffled in turn. The same Python transcription draws these orders.
  const std::vector<std::size_t> block_of = {0, 1, 0, 2, 1, 0, 2};
  const std::vector<std::vector<std::size_t>> golden = {
      {2, 5, 0, 4, 1, 3, 6}, {6, 3, 1, 4, 5, 0, 2}, {0, 2, 5, 1, 4, 6, 3}};
  EXPECT_EQ(blocked_round_orders(block_of, 3, 7), golden);
}

TEST(BlockedOrder, VisitsEachBlockTogetherInAbbaOrder) {
  const std::vector<std::size_t> block_of = {1, 0, 2, 1, 0, 0, 2, 1, 2, 0};
  const auto orders = blocked_round_orders(block_of, 8, 2026);
  ASSERT_EQ(orders.size(), 8u);
  for (std::size_t r = 0; r < orders.size(); ++r) {
    std::vector<std::size_t> sorted = orders[r];
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], i) << "round " << r << " is a permutation";
    std::vector<std::size_t> blocks_in_order;
    for (const std::size_t condition : orders[r])
      if (blocks_in_order.empty() || blocks_in_order.back() != block_of[condition])
        blocks_in_order.push_back(block_of[condition]);
    EXPECT_EQ(blocks_in_order, abba_block_order(3, static_cast<int>(r))) << "round " << r;
  }
}

TEST(BlockedOrder, ABlockWithoutConditionsIsRefused) {
  EXPECT_THROW(blocked_round_orders({0, 2}, 1, 1), std::exception);
}

}  // namespace
}  // namespace tpb
