// A campaign's pooled verdict against hand-computed values: Student's t
// quantiles (tables), one cell pooled over launches at and beside the margin,
// the detectable errors and the launches a spread needs for 80 % power.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "predictor/campaign_pooling.hpp"

namespace tpb {
namespace {

const DecisionRule kPoolRule;                    // K = 15 %, α = 0.05
const double kPoolDelta = kPoolRule.margin_log();    // ln 1.15 = 0.139762

TEST(CampaignPooling, StudentTQuantilesMatchTheTables) {
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.95, 2), 2.919986, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.05, 9), -1.833113, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 100000), 1.959985, 1e-5);
  EXPECT_THROW(student_t_quantile(0.5, 0), Error);
  EXPECT_THROW(student_t_quantile(1.0, 3), Error);
}

// Five launches at 0.01 ± 0.02 (mean 0.01, SD √(0.001/4) = 0.0158114):
// 1 − 2α: ± t(0.95, 4) = 2.131847 · 0.0158114/√5 = ±0.0150747.
TEST(CampaignPooling, MeanSdAndIntervalsByHand) {
  const std::vector<double> medians{-0.01, 0.0, 0.01, 0.02, 0.03};
  const PooledCell cell = pool_cell(medians, kPoolRule, 4);
  EXPECT_DOUBLE_EQ(cell.judged.median_log, 0.01);
  EXPECT_NEAR(cell.between_sd_log, std::sqrt(0.001 / 4), 1e-15);
  EXPECT_EQ(cell.judged.rounds, 5);
  EXPECT_NEAR(cell.judged.hold.high - 0.01, 2.131847 * std::sqrt(0.001 / 4) / std::sqrt(5.0), 1e-6);
  // 1 − α/m = 1 − 0.0125: t(0.99375, 4) = 5.0 nearly (4.9989); wider than the HOLDS interval.
  EXPECT_GT(cell.judged.falsify.high, cell.judged.hold.high);
  EXPECT_NEAR(cell.judged.falsify.coverage, 1 - 0.05 / 4, 1e-12);
  EXPECT_EQ(cell.judged.outcome, Outcome::holds);
  EXPECT_EQ(cell.launch_median_log, medians);
}

TEST(CampaignPooling, BeyondTheMarginFalsifiesAndAcrossItIsInconclusive) {
  const std::vector<double> far{0.30, 0.31, 0.29, 0.30};
  EXPECT_EQ(pool_cell(far, kPoolRule, 4).judged.outcome, Outcome::falsified);
  const std::vector<double> below{-0.30, -0.31, -0.29, -0.30};
  EXPECT_EQ(pool_cell(below, kPoolRule, 4).judged.outcome, Outcome::falsified);
  const std::vector<double> across{kPoolDelta - 0.01, kPoolDelta + 0.01, kPoolDelta, kPoolDelta};
  const PooledCell straddles = pool_cell(across, kPoolRule, 4);
  EXPECT_EQ(straddles.judged.outcome, Outcome::inconclusive);
  EXPECT_EQ(straddles.judged.reason, InconclusiveReason::straddles_margin);
}

TEST(CampaignPooling, OneLaunchFormsNoInterval) {
  const std::vector<double> one{0.0};
  const PooledCell cell = pool_cell(one, kPoolRule, 4);
  EXPECT_FALSE(cell.judged.hold.formed);
  EXPECT_TRUE(std::isnan(cell.between_sd_log));
  EXPECT_EQ(cell.judged.reason, InconclusiveReason::too_few_rounds);
}

TEST(CampaignPooling, FormAtKUsesTheRuleOfOneLaunch) {
  const std::vector<double> holds{0.0, 0.01, -0.01}, falsified{0.5, 0.5, 0.51};
  FormAtK form = judge_form_at_k({pool_cell(holds, kPoolRule, 2).judged, pool_cell(falsified, kPoolRule, 2).judged}, true);
  EXPECT_EQ(form.outcome, Outcome::falsified);
  form = judge_form_at_k({pool_cell(holds, kPoolRule, 2).judged, pool_cell(holds, kPoolRule, 2).judged}, false);
  EXPECT_EQ(form.reason, InconclusiveReason::aa_not_held);
}

// L = 5, SD 0.05, m = 4: FALSIFY needs δ + t(0.99375, 4) · 0.05/√5;
// HOLD allows δ − t(0.95, 4) · 0.05/√5 = 0.139762 − 0.047669 = 0.092093.
TEST(CampaignPooling, DetectableErrorsByHand) {
  const double se = 0.05 / std::sqrt(5.0);
  EXPECT_NEAR(smallest_falsifiable_pct(5, 0.05, kPoolRule, 4),
              std::expm1(kPoolDelta + student_t_quantile(1 - 0.05 / 8, 4) * se) * 100, 1e-9);
  EXPECT_NEAR(largest_holdable_pct(5, 0.05, kPoolRule), std::expm1(kPoolDelta - 2.131847 * se) * 100, 1e-4);
  EXPECT_TRUE(std::isnan(largest_holdable_pct(2, 0.5, kPoolRule)));  // 6.3 · 0.35 > δ: nothing can HOLD
}

// At SD 0 two launches suffice; otherwise the L returned is enough and L − 1
// is not, by the closed form.
TEST(CampaignPooling, LaunchesForPowerIsTheSmallestEnough) {
  EXPECT_EQ(launches_for_hold_power(0.0, kPoolRule), 2);
  for (double sd : {0.02, 0.05, 0.1, 0.2}) {
    const int launches = launches_for_hold_power(sd, kPoolRule);
    const auto enough = [&](int l) {
      return (student_t_quantile(0.95, l - 1) + student_t_quantile(0.9, l - 1)) * sd / std::sqrt(l) <= kPoolDelta;
    };
    EXPECT_TRUE(enough(launches)) << sd;
    if (launches > 2) {
      EXPECT_FALSE(enough(launches - 1)) << sd;
    }
  }
  EXPECT_EQ(launches_for_hold_power(10.0, kPoolRule, 0.8, 20), 21);
}

}  // namespace
}  // namespace tpb
