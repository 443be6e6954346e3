// Paired and calibration-time errors per round by hand, and a common drift
// that cancels in the paired error but not in the sealed one.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "predictor/paired_errors.hpp"

namespace tpb {
namespace {

TEST(PairedRoundErrors, OneRoundByHand) {
  // Cell 1: measured 100, paired 110 (+10 %), sealed 120 (+20 %).
  // Cell 2: measured 200, paired 180 (−10 %), sealed 200 (0 %).
  const PairedRoundErrors errors = paired_round_errors({{{100, 110, 120}, {200, 180, 200}}});
  ASSERT_EQ(errors.paired_pct.size(), 1u);
  EXPECT_DOUBLE_EQ(errors.paired_pct[0], 10.0);
  EXPECT_DOUBLE_EQ(errors.sealed_pct[0], 10.0);
  EXPECT_DOUBLE_EQ(errors.drift_pct[0], 10.0);  // mean of (20 − 10) and (0 − (−10))
}

TEST(PairedRoundErrors, ACommonDriftCancelsOnlyInThePairedError) {
  // Every condition slows by 2 % a round; the form predicts 5 % high on
  // its same-round anchors; the sealed prediction stays at round 0's value.
  std::vector<std::vector<RoundCellTimes>> rounds;
  for (int r = 0; r < 6; ++r) {
    const double slowdown = 1.0 + 0.02 * r;
    rounds.push_back({{1000 * slowdown, 1050 * slowdown, 1050}});
  }
  const PairedRoundErrors errors = paired_round_errors(rounds);
  for (int r = 0; r < 6; ++r) {
    EXPECT_NEAR(errors.paired_pct[r], 5.0, 1e-9);
    EXPECT_NEAR(errors.sealed_pct[r], std::abs(1.05 / (1.0 + 0.02 * r) - 1.0) * 100, 1e-9);
  }
  EXPECT_LT(errors.drift_pct.back(), 0.0);  // the terms got slower than calibrated
}

TEST(PairedRoundErrors, RefusesRaggedRounds) {
  EXPECT_THROW(paired_round_errors({{{100, 100, 100}}, {}}), Error);
  EXPECT_THROW(paired_round_errors({}), Error);
}

}  // namespace
}  // namespace tpb
