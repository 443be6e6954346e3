// What a declared N can resolve, said before measuring, against
// hand-computed cases; the plan never changes N.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "common/error.hpp"
#include "predictor/round_plan.hpp"

namespace tpb {
namespace {

RoundPlanInputs quick_start_inputs(int rounds) {
  RoundPlanInputs in;
  in.cell_log_sd = {0.10, 0.20};
  in.rounds = rounds;
  in.family_cells = 4;
  return in;
}

TEST(RoundPlan, HalfWidthsOfEightyRoundsByHand) {
  // 80 rounds: 16 blocks of 5. The largest proxy 0.20; the SD of the median of
  // block medians √(π/32) · √(π/10) · 0.20 = 0.035124. With δ = ln 1.15:
  //   HOLDS within  e^{δ − z_0.95 · 0.035124} − 1 = e^{0.139762 − 0.057774} − 1 = 8.544 %;
  //   FALSIFIED beyond e^{δ + z_0.99375 · 0.035124} − 1 = 25.545 %.
  const RoundPlan plan = plan_rounds(quick_start_inputs(80));
  EXPECT_EQ(plan.rounds, 80);
  EXPECT_EQ(plan.blocks, 16);
  EXPECT_DOUBLE_EQ(plan.spread_log_sd, 0.20);
  EXPECT_TRUE(plan.formed);
  EXPECT_NEAR(plan.holds_within_pct, 8.544, 0.001);
  EXPECT_NEAR(plan.falsified_beyond_pct, 25.545, 0.001);
  EXPECT_FALSE(plan.exceeds_budget());
  EXPECT_NE(round_plan_line(plan).find("80 rounds (16 blocks)"), std::string::npos);
}

TEST(RoundPlan, TooFewBlocksForTheFalsifyIntervalIsNotFormed) {
  // 35 rounds: 7 blocks, one short of the 8 that 1 − α/m = 0.9875 needs.
  const RoundPlan plan = plan_rounds(quick_start_inputs(35));
  EXPECT_EQ(plan.rounds, 35);  // as declared, never changed
  EXPECT_EQ(plan.blocks, 7);
  EXPECT_FALSE(plan.formed);
  EXPECT_NE(round_plan_line(plan).find("too_few_rounds"), std::string::npos);
  EXPECT_TRUE(plan_rounds(quick_start_inputs(40)).formed);
}

TEST(RoundPlan, TheTimeBudgetIsReportedNotApplied) {
  RoundPlanInputs in = quick_start_inputs(80);
  in.seconds_per_round = 0.5;
  in.time_budget_s = 30;
  const RoundPlan plan = plan_rounds(in);
  EXPECT_EQ(plan.rounds, 80);
  EXPECT_EQ(plan.budget_rounds, 60);
  EXPECT_TRUE(plan.exceeds_budget());
  EXPECT_NE(round_plan_line(plan).find("about 60 rounds"), std::string::npos);
}

TEST(RoundPlan, JsonRoundTripAndRefusals) {
  RoundPlanInputs in = quick_start_inputs(80);
  in.seconds_per_round = 0.5;
  const RoundPlan plan = plan_rounds(in);
  const RoundPlan back = parse_round_plan(round_plan_json(plan));
  EXPECT_EQ(back.rounds, plan.rounds);
  EXPECT_EQ(back.blocks, plan.blocks);
  EXPECT_DOUBLE_EQ(back.holds_within_pct, plan.holds_within_pct);
  EXPECT_DOUBLE_EQ(back.falsified_beyond_pct, plan.falsified_beyond_pct);
  auto json = round_plan_json(plan);
  json.erase("blocks");
  EXPECT_THROW(parse_round_plan(json), UsageError);
  in.cell_log_sd = {0.0};
  EXPECT_THROW(plan_rounds(in), Error);
}

}  // namespace
}  // namespace tpb
