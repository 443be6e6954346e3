// The straggler term by hand: each rank's lateness read inside the
// collectives, and a systematic slowdown named only above half the kill switch.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "predictor/straggler.hpp"

namespace tpb {
namespace {

TEST(StragglerTerm, HandComputedRounds) {
  // One cell, t_step 100 µs; rank 0 waits 10 µs inside the collectives, rank
  // 1 waits 30 µs: rank 0 arrived 20 µs later. Straggler (mean − min) / t_step
  // = (20 − 10) / 100 = 10 %; rank 0's slowdown (max − own) = 20 %, rank 1's 0.
  const std::vector<StragglerRound> rounds(12, StragglerRound{{100.0}, {{10.0, 30.0}}});
  const StragglerTerm term = straggler_term(rounds, 0.05, 15.0);
  EXPECT_DOUBLE_EQ(term.straggler_pct.estimate, 10.0);
  ASSERT_EQ(term.ranks.size(), 2u);
  EXPECT_DOUBLE_EQ(term.ranks[0].slowdown_pct.estimate, 20.0);
  EXPECT_DOUBLE_EQ(term.ranks[1].slowdown_pct.estimate, 0.0);
  EXPECT_EQ(term.systematic_rank, 0);  // 20 % > K/2 = 7.5 %
}

TEST(StragglerTerm, MeanOverCellsPerRound) {
  // Two cells: rank 1 is 12 µs late in a 100 µs step and 0 in a 200 µs one:
  // its slowdown (12 % + 0 %) / 2 = 6 %, below K/2 = 7.5 %: not named.
  const std::vector<StragglerRound> rounds(12, StragglerRound{{100.0, 200.0}, {{22.0, 10.0}, {10.0, 10.0}}});
  const StragglerTerm term = straggler_term(rounds, 0.05, 15.0);
  EXPECT_DOUBLE_EQ(term.ranks[1].slowdown_pct.estimate, 6.0);
  EXPECT_DOUBLE_EQ(term.straggler_pct.estimate, 3.0);  // (6 % + 0 %) / 2
  EXPECT_EQ(term.systematic_rank, -1);
}

TEST(StragglerTerm, SlowdownBelowHalfTheKillSwitchIsNoWarning) {
  const std::vector<StragglerRound> rounds(12, StragglerRound{{100.0}, {{10.0, 15.0}}});
  EXPECT_EQ(straggler_term(rounds, 0.05, 15.0).systematic_rank, -1);  // 5 % ≤ 7.5 %
}

TEST(StragglerTerm, RefusesOneRankOrNoRounds) {
  EXPECT_THROW(straggler_term({StragglerRound{{100.0}, {{10.0}}}}, 0.05, 15.0), Error);
  EXPECT_THROW(straggler_term({}, 0.05, 15.0), Error);
}

}  // namespace
}  // namespace tpb
