// The rounds planned from the calibration's spread, against hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "predictor/round_plan.hpp"

namespace tpb {
namespace {

TEST(RoundPlan, RoundsForEffectOfOneLookByHand) {
  // One cell, one look (MIN above every n searched, so each n is its own
  // only checkpoint and spends the whole α = 0.05): n is the first with
  // (z_0.975 + z_0.80) · √(π/2) · σ / √n ≤ ln 1.15 − ln 1.075, i.e.
  // (1.959964 + 0.841621) · 1.253314 · 0.10 / 0.067441 = 5.2064 ≤ √n: n = 28 (27.11 rounded up).
  RoundPlanInputs in;
  in.kill_switch_pct = 15.0;
  in.effect_pct = 7.5;
  in.family_alpha = 0.05;
  in.judged_cells = 1;
  in.min_rounds = 1000;
  in.max_rounds = 1000;
  in.power = 0.80;
  EXPECT_EQ(rounds_for_effect(in, 0.10), 28);
  EXPECT_EQ(rounds_for_effect(in, 0.05), 7);  // (5.2064 / 2)² = 6.78
}

TEST(RoundPlan, RoundsForEffectSpendsTheLastLooksAlpha) {
  // MIN 10, 4 judged cells: at n = 40 the looks are 10, 20, 40, and the last
  // spends 0.05 − OBF(20/40) = 0.05 − 0.005575 = 0.044425, 0.011106 per cell:
  // (2.5393 + 0.8416) · 1.2533 · 0.10 / √40 = 0.06700 ≤ 0.06744; at n = 39
  // (0.010950 per cell) the bound is 0.06795, above it.
  RoundPlanInputs in;
  in.judged_cells = 4;
  in.min_rounds = 10;
  in.max_rounds = 60;
  in.power = 0.80;
  EXPECT_EQ(rounds_for_effect(in, 0.10), 40);
}

TEST(RoundPlan, PlanInflatesTheProxyAndClampsToTheRange) {
  RoundPlanInputs in;
  in.cell_log_sd = {0.10 / kPlanInflation, 0.10 / kPlanInflation};  // inflated: 0.10 each
  in.judged_cells = 4;
  in.min_rounds = 10;
  in.max_rounds = 30;
  const RoundPlan plan = plan_rounds(in);
  EXPECT_NEAR(plan.spread_log_sd, std::sqrt(2.0) * 0.10 / 2.0, 1e-12);  // √(Σ σ²) / cells
  EXPECT_EQ(plan.needed_rounds, rounds_for_effect(in, plan.spread_log_sd));
  EXPECT_GE(plan.planned_rounds, 10);
  EXPECT_LE(plan.planned_rounds, 30);
  in.cell_log_sd = {0.40, 0.40};
  const RoundPlan capped = plan_rounds(in);
  EXPECT_GT(capped.needed_rounds, 30);
  EXPECT_EQ(capped.planned_rounds, 30);
  EXPECT_GT(capped.resolvable_kill_switch_pct, 15.0);  // what 30 rounds can resolve at this spread
}

TEST(RoundPlan, RefusesAnEffectAtOrAboveTheKillSwitch) {
  RoundPlanInputs in;
  in.cell_log_sd = {0.1};
  in.effect_pct = 15.0;
  EXPECT_THROW(plan_rounds(in), UsageError);
}

}  // namespace
}  // namespace tpb
