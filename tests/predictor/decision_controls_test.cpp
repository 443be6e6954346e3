// The controls on data whose truth is known: A/A, the power check at two
// noise levels, the same-node spread and the gates they set.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "common/error.hpp"
#include "predictor/decision_controls.hpp"
#include "predictor/random64.hpp"

namespace tpb {
namespace {

// rounds × cells of a 1000 µs step with log-normal noise of σ = `spread`.
std::vector<std::vector<double>> noisy_rounds(int rounds, int cells, double spread, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<std::vector<double>> values(static_cast<std::size_t>(rounds));
  for (auto& round : values)
    for (int c = 0; c < cells; ++c) {
      const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform_unit(rng)));  // Box–Muller
      const double z = radius * std::cos(2.0 * std::numbers::pi * uniform_unit(rng));
      round.push_back(1000.0 * (c + 1) * std::exp(spread * z));
    }
  return values;
}

// An A/A cell under version 2: per-round MAPE series (paired and sealed alike).
CellEvidence mape_cell(const std::vector<double>& errors) {
  CellEvidence cell;
  cell.errors = {errors, errors, std::vector<double>(errors.size(), 0.0)};
  return cell;
}

DecisionRule version2() {
  DecisionRule rule;
  rule.version = 2;
  rule.bootstrap.resamples = 200;
  return rule;
}

TEST(AaControl, HoldsOnlyWhenEveryAaCellHolds) {
  const std::vector<double> quiet = {1, 2, 3, 2, 1, 3, 2, 1, 2, 3};
  const std::vector<double> loud = {10, 20, 30, 20, 10, 30, 20, 10, 20, 30};
  EXPECT_TRUE(aa_control({mape_cell(quiet), mape_cell(quiet)}, version2(), 0.05).holds);
  EXPECT_FALSE(aa_control({mape_cell(quiet), mape_cell(loud)}, version2(), 0.05).holds);
  EXPECT_DOUBLE_EQ(aa_control({mape_cell(quiet), mape_cell(loud)}, version2(), 0.05).upper_pct, 30);
  EXPECT_THROW(aa_control({}, version2(), 0.05), Error);
}

// Two rounds cannot bound a median at 95 %: the A/A control is then not
// formed (too few rounds), which the study reports apart from a failure.
TEST(AaControl, TooFewRoundsIsNotFormedRatherThanFailed) {
  const std::vector<double> quiet = {1, 2, 3, 2, 1, 3, 2, 1, 2, 3};
  const std::vector<double> two_rounds = {1, 2};
  EXPECT_TRUE(aa_control({mape_cell(quiet), mape_cell(quiet)}, version2(), 0.05).formed);
  const AaControl short_run = aa_control({mape_cell(quiet), mape_cell(two_rounds)}, version2(), 0.05);
  EXPECT_FALSE(short_run.formed);
  EXPECT_FALSE(short_run.holds);
}

TEST(AaControl, Version3JudgesTheMedianFirstErrorAndKeepsItsUpperBound) {
  CellEvidence quiet;
  quiet.log_ratios.paired.assign(12, {std::log(1.02), std::log(0.99)});
  quiet.log_ratios.sealed = quiet.log_ratios.paired;
  quiet.log_ratios.drift_pct.assign(12, 0.0);
  const AaControl control = aa_control({quiet}, DecisionRule{}, 0.05);
  EXPECT_TRUE(control.holds);
  EXPECT_NEAR(control.upper_pct, 1.5, 1e-9);
  CellEvidence biased = quiet;
  biased.log_ratios.paired.assign(12, {std::log(1.25), std::log(1.25)});
  EXPECT_FALSE(aa_control({quiet, biased}, DecisionRule{}, 0.05).holds);
}

// Share of 200 seeds of 16 rounds × 2 cells whose power check passes at the
// α of 10 cells × 3 checkpoints.
double power_pass_rate(double spread) {
  int passes = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed)
    passes += power_check(noisy_rounds(16, 2, spread, seed), version2(), 0.05 / 30).passes();
  return passes / 200.0;
}

TEST(PowerCheck, QuietMeasurementsFalsifyBothSyntheticPredictions) {
  // σ = 3 %: an error of 30 % stands far outside the noise.
  EXPECT_EQ(power_pass_rate(0.03), 1.0);
}

TEST(PowerCheck, RoundsThatJumpByTwiceTheKillSwitchHaveNoPower) {
  // Interference that slows every other round by 30 %: half the rounds look
  // like a perfect ×1.3 prediction, so neither synthetic form is FALSIFIED.
  std::vector<std::vector<double>> rounds;
  for (int r = 0; r < 16; ++r) rounds.push_back({r % 2 ? 1300.0 : 1000.0, r % 2 ? 2600.0 : 2000.0});
  for (const DecisionRule& rule : {version2(), DecisionRule{}}) {
    const PowerCheck power = power_check(rounds, rule, 0.05 / 30);
    EXPECT_NE(to_string(power.over.outcome), "FALSIFIED");
    EXPECT_NE(to_string(power.under.outcome), "FALSIFIED");
    EXPECT_FALSE(power.passes());
  }
}

TEST(PowerCheck, RefusesAKillSwitchOfHalfOrMore) {
  DecisionRule rule;
  rule.kill_switch_pct = 50;
  EXPECT_THROW(power_check(noisy_rounds(8, 1, 0.1, 3), rule, 0.05), Error);
  EXPECT_THROW(power_check(noisy_rounds(1, 1, 0.1, 3), DecisionRule{}, 0.05), Error);
}

TEST(SameNodeSpread, BoundsTheRelativeRangeAcrossRanks) {
  // Each round: ranks at 100, 102, 104 µs: spread 4 %; interval [4, 4].
  const std::vector<std::vector<double>> even(10, std::vector<double>{100, 102, 104});
  const RoundInterval spread = same_node_spread_interval(even, 0.05);
  ASSERT_TRUE(spread.formed);
  EXPECT_NEAR(spread.high, 4.0 / 102.0 * 100.0, 1e-12);
  EXPECT_FALSE(rank_imbalance(spread, 15));  // 3.9 % ≤ 7.5 %
  const std::vector<std::vector<double>> skewed(10, std::vector<double>{100, 110});
  EXPECT_TRUE(rank_imbalance(same_node_spread_interval(skewed, 0.05), 15));  // 9.5 % > 7.5 %
  EXPECT_TRUE(rank_imbalance(same_node_spread_interval({{100, 101}}, 0.05), 15));  // cannot be bounded
  EXPECT_THROW(same_node_spread_interval({{100}}, 0.05), Error);
}

TEST(Gates, ControlsGateTheCellsTheySpeakFor) {
  StudyControls controls;
  controls.aa_holds = false;
  controls.rank_imbalance = true;
  controls.unpowered_k = {4};
  const CellGates k1 = gates_for(1, controls);
  EXPECT_TRUE(k1.noise_floor);
  EXPECT_FALSE(k1.rank_imbalance);  // the same-node control speaks for k > 1
  EXPECT_FALSE(k1.underpowered);
  const CellGates k4 = gates_for(4, controls);
  EXPECT_TRUE(k4.rank_imbalance);
  EXPECT_TRUE(k4.underpowered);
}

TEST(Gates, PowerNeedsNoSpeedupFalsifiedAboveOne) {
  PowerCheck passing;
  passing.over.outcome = passing.under.outcome = Outcome::falsified;
  EXPECT_TRUE(k_has_power(1, passing, Outcome::inconclusive));
  EXPECT_TRUE(k_has_power(2, passing, Outcome::falsified));
  EXPECT_FALSE(k_has_power(2, passing, Outcome::holds));
  PowerCheck failing = passing;
  failing.under.outcome = Outcome::inconclusive;
  EXPECT_FALSE(k_has_power(2, failing, Outcome::falsified));
}

}  // namespace
}  // namespace tpb
