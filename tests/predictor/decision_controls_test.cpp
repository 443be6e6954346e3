// The controls by hand: the A/A (every rank's cells must all HOLD; it gates)
// and the same-node spread (reported).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "predictor/decision_controls.hpp"

namespace tpb {
namespace {

// An A/A cell judged on 80 constant rounds at `error_pct` (its interval [d, d]).
AaCell aa_cell(int rank, double error_pct) {
  const std::vector<double> d(80, std::log1p(error_pct / 100.0));
  return {rank, 1, 256, judge_cell(d, DecisionRule{}, 1)};
}

TEST(AaControl, HoldsOnlyWhenEveryRanksCellsHold) {
  const AaControl quiet = aa_control({aa_cell(0, 0.5), aa_cell(1, -2.0)});
  EXPECT_TRUE(quiet.run);
  EXPECT_TRUE(quiet.holds);
  EXPECT_EQ(quiet.worst_cell, 1);
  // Rank 1 reproduces itself 20 % off: the A/A fails, whatever rank 0 does.
  const AaControl loud = aa_control({aa_cell(0, 0.5), aa_cell(1, 20.0)});
  EXPECT_FALSE(loud.holds);
  EXPECT_EQ(loud.worst_cell, 1);
  EXPECT_EQ(loud.cells[1].rank, 1);
  // On the margin is not inside it.
  EXPECT_FALSE(aa_control({aa_cell(0, 15.0)}).holds);
  EXPECT_TRUE(loud.falsified);  // 20 % off: its 1 − α interval [20, 20] % lies beyond the 15 % margin
}

TEST(AaControl, FalsifiedWhenSomeCellLiesBeyondTheMargin) {
  EXPECT_FALSE(aa_control({aa_cell(0, 0.5), aa_cell(1, 10.0)}).falsified);  // open or holding, not falsified
  const AaControl biased = aa_control({aa_cell(0, 0.5), aa_cell(1, -20.0)});
  EXPECT_TRUE(biased.falsified);
  EXPECT_FALSE(biased.holds);
}

TEST(AaControl, NotRunWithoutCells) {
  const AaControl none = aa_control({});
  EXPECT_FALSE(none.run);
  EXPECT_FALSE(none.holds);
  EXPECT_EQ(none.worst_cell, -1);
}

TEST(SameNodeSpread, MaxMinusMinOverTheMedianPerRound) {
  // 12 rounds of ranks at 100 and 110 µs: (110 − 100) / 105 = 9.524 % each.
  const std::vector<std::vector<double>> rounds(12, {100.0, 110.0});
  const RoundInterval spread = same_node_spread_interval(rounds, 0.10);
  ASSERT_TRUE(spread.formed);
  EXPECT_NEAR(spread.estimate, 10.0 / 105.0 * 100.0, 1e-12);
  EXPECT_NEAR(spread.low, spread.high, 1e-12);
  EXPECT_THROW(same_node_spread_interval({{100.0}}, 0.10), Error);
  EXPECT_THROW(same_node_spread_interval({}, 0.10), Error);
}

}  // namespace
}  // namespace tpb
