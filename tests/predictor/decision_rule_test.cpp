// The decision rule as tables of cases, one per sealed version: interval
// against the kill switch, gates, drift and precedence; then rounds_needed,
// the rule's validation, the α of a look and the stop rule by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "predictor/cell_verdict.hpp"
#include "predictor/study_stopping.hpp"

namespace tpb {
namespace {

// first, first + 1, ..., first + n − 1: with n = 10 at α = 0.05 the interval
// is [first + 1, first + 8] (2nd and 9th smallest).
std::vector<double> ramp(double first, int n = 10) {
  std::vector<double> values(static_cast<std::size_t>(n));
  std::iota(values.begin(), values.end(), first);
  return values;
}

struct RuleCase {
  std::string name;
  std::vector<double> paired;
  std::vector<double> sealed;  // empty: the same as paired
  CellGates gates;
  bool applicable = true;
  Outcome outcome;
  InconclusiveReason reason;
};

CellGates gate(bool noise_floor, bool rank_imbalance, bool underpowered) {
  return {.noise_floor = noise_floor, .rank_imbalance = rank_imbalance, .underpowered = underpowered};
}

using R = InconclusiveReason;
using O = Outcome;
const CellGates kOpen{};

std::vector<RuleCase> rule_cases() {
  return {
      {"IntervalBelowHolds", ramp(2), {}, kOpen, true, O::holds, R::none},
      {"IntervalAboveFalsified", ramp(20), {}, kOpen, true, O::falsified, R::none},
      {"IntervalAcrossStraddles", ramp(10), {}, kOpen, true, O::inconclusive, R::straddles_threshold},
      {"UpperBoundOnThresholdStraddles", ramp(7), {}, kOpen, true, O::inconclusive, R::straddles_threshold},
      {"LowerBoundOnThresholdStraddles", ramp(14), {}, kOpen, true, O::inconclusive, R::straddles_threshold},
      {"FiveRoundsTooFew", ramp(2, 5), {}, kOpen, true, O::inconclusive, R::too_few_rounds},
      {"NotApplicableIsNeverJudged", ramp(50), {}, kOpen, false, O::not_applicable, R::none},
      {"NoiseFloorBlocksHolds", ramp(2), {}, gate(true, false, false), true, O::inconclusive, R::noise_floor},
      {"NoiseFloorBlocksFalsified", ramp(20), {}, gate(true, false, false), true, O::inconclusive, R::noise_floor},
      {"RankImbalanceBlocksHolds", ramp(2), {}, gate(false, true, false), true, O::inconclusive,
       R::rank_imbalance},
      {"OppositeSealedVerdictIsDrift", ramp(2), ramp(30), kOpen, true, O::inconclusive, R::drift},
      {"OppositeSealedVerdictIsDriftWhenFalsified", ramp(30), ramp(2), kOpen, true, O::inconclusive, R::drift},
      {"OpenSealedVerdictLeavesHolds", ramp(2), ramp(10), kOpen, true, O::holds, R::none},
      {"UnderpoweredBlocksHolds", ramp(2), {}, gate(false, false, true), true, O::inconclusive, R::underpowered},
      {"UnderpoweredKeepsFalsified", ramp(20), {}, gate(false, false, true), true, O::falsified, R::none},
      {"UnderpoweredKeepsStraddles", ramp(10), {}, gate(false, false, true), true, O::inconclusive,
       R::straddles_threshold},
      {"TooFewRoundsBeforeNoiseFloor", ramp(2, 5), {}, gate(true, true, true), true, O::inconclusive,
       R::too_few_rounds},
      {"NoiseFloorBeforeRankImbalance", ramp(2), {}, gate(true, true, false), true, O::inconclusive,
       R::noise_floor},
      {"RankImbalanceBeforeDrift", ramp(2), ramp(30), gate(false, true, false), true, O::inconclusive,
       R::rank_imbalance},
      {"DriftBeforeUnderpowered", ramp(2), ramp(30), gate(false, false, true), true, O::inconclusive, R::drift},
  };
}

class DecisionRuleVersion2Table : public testing::TestWithParam<RuleCase> {};

TEST_P(DecisionRuleVersion2Table, GivesTheOutcomeAndReason) {
  const RuleCase& c = GetParam();
  CellEvidence evidence;
  evidence.applicable = c.applicable;
  evidence.not_applicable_reason = c.applicable ? "" : "t_host contains the compute";
  evidence.errors.paired_pct = c.paired;
  evidence.errors.sealed_pct = c.sealed.empty() ? c.paired : c.sealed;
  evidence.errors.drift_pct.assign(c.paired.size(), 0.0);
  DecisionRule rule;  // kill switch 15 %
  rule.version = 2;
  rule.bootstrap.resamples = 200;
  const CellVerdict verdict = judge_cell(evidence, c.gates, rule, 0.05);
  EXPECT_EQ(to_string(verdict.outcome), to_string(c.outcome));
  EXPECT_EQ(to_string(verdict.reason), to_string(c.reason));
}

INSTANTIATE_TEST_SUITE_P(Cases, DecisionRuleVersion2Table, testing::ValuesIn(rule_cases()),
                         [](const testing::TestParamInfo<RuleCase>& case_info) { return case_info.param.name; });

// Version 3: rounds of one grid cell at ln(1 + (first + i) %) for i = 0..n−1,
// shuffled so that no order matters: the cell error is the middle value.
std::vector<std::vector<double>> log_ramp(double first, int n = 12) {
  std::vector<std::vector<double>> rounds;
  for (int i = 0; i < n; ++i) rounds.push_back({std::log1p((first + (i * 5 % n)) / 100.0)});
  return rounds;
}

struct MedianFirstCase {
  std::string name;
  double paired_first;
  double sealed_first;  // NaN: the same as paired
  CellGates gates;
  int rounds;
  Outcome outcome;
  InconclusiveReason reason;
};

std::vector<MedianFirstCase> median_first_cases() {
  const double same = std::nan("");
  const CellGates aa_failed{.noise_floor = true, .aa_upper_pct = 20.0};
  const CellGates rank_gate{.rank_imbalance = true};
  return {
      {"BelowHolds", 2, same, kOpen, 12, O::holds, R::none},
      {"AboveFalsified", 30, same, kOpen, 12, O::falsified, R::none},
      {"AcrossStraddles", 10, same, kOpen, 12, O::inconclusive, R::straddles_threshold},
      {"FiveRoundsTooFew", 2, same, kOpen, 5, O::inconclusive, R::too_few_rounds},
      {"OppositeSealedIsDrift", 2, 30, kOpen, 12, O::inconclusive, R::drift},
      {"FailedAaWithholdsHolds", 2, same, aa_failed, 12, O::inconclusive, R::noise_floor},
      {"FailedAaLeavesFalsifiedBeyondItsBias", 40, same, aa_failed, 12, O::falsified, R::none},
      {"FailedAaWithholdsFalsifiedItsBiasExplains", 20, same, aa_failed, 12, O::inconclusive, R::noise_floor},
      {"UnderpoweredBlocksHolds", 2, same, gate(false, false, true), 12, O::inconclusive, R::underpowered},
      {"UnderpoweredKeepsFalsified", 30, same, gate(false, false, true), 12, O::falsified, R::none},
      {"SameNodeNeverGates", 2, same, rank_gate, 12, O::holds, R::none},
  };
}

class DecisionRuleVersion3Table : public testing::TestWithParam<MedianFirstCase> {};

TEST_P(DecisionRuleVersion3Table, GivesTheOutcomeAndReason) {
  const MedianFirstCase& c = GetParam();
  CellEvidence evidence;
  evidence.log_ratios.paired = log_ramp(c.paired_first, c.rounds);
  evidence.log_ratios.sealed = log_ramp(std::isnan(c.sealed_first) ? c.paired_first : c.sealed_first, c.rounds);
  evidence.log_ratios.drift_pct.assign(static_cast<std::size_t>(c.rounds), 0.0);
  DecisionRule rule;  // version 3, kill switch 15 %
  rule.bootstrap.resamples = 2000;
  const CellVerdict verdict = judge_cell(evidence, c.gates, rule, 0.05);
  EXPECT_EQ(to_string(verdict.outcome), to_string(c.outcome));
  EXPECT_EQ(to_string(verdict.reason), to_string(c.reason));
}

INSTANTIATE_TEST_SUITE_P(Cases, DecisionRuleVersion3Table, testing::ValuesIn(median_first_cases()),
                         [](const testing::TestParamInfo<MedianFirstCase>& case_info) { return case_info.param.name; });

TEST(CellVerdictVersion3, CarriesSignedAndPerCellErrors) {
  CellEvidence evidence;
  evidence.log_ratios.paired.assign(12, {std::log(1.10), std::log(0.96)});
  evidence.log_ratios.sealed = evidence.log_ratios.paired;
  evidence.log_ratios.drift_pct.assign(12, 1.5);
  const CellVerdict verdict = judge_cell(evidence, kOpen, DecisionRule{}, 0.05);
  EXPECT_EQ(verdict.outcome, Outcome::holds);
  EXPECT_NEAR(verdict.error_pct, 7.0, 1e-9);
  EXPECT_NEAR(verdict.signed_error_pct, 3.0, 1e-9);
  ASSERT_EQ(verdict.cell_error_pct.size(), 2u);
  EXPECT_NEAR(verdict.cell_error_pct[1], -4.0, 1e-9);
  EXPECT_DOUBLE_EQ(verdict.drift_pct, 1.5);
  EXPECT_EQ(verdict.rounds, 12);
}

TEST(CellVerdictVersion2, CarriesTheIntervalDriftAndPExceeds) {
  CellEvidence evidence;
  evidence.errors.paired_pct = ramp(2);
  evidence.errors.sealed_pct = ramp(4);
  evidence.errors.drift_pct.assign(10, 2.0);
  DecisionRule rule;
  rule.version = 2;
  const CellVerdict verdict = judge_cell(evidence, kOpen, rule, 0.05);
  EXPECT_DOUBLE_EQ(verdict.error_pct, 6.5);
  EXPECT_DOUBLE_EQ(verdict.error_ci_low_pct, 3);
  EXPECT_DOUBLE_EQ(verdict.error_ci_high_pct, 10);
  EXPECT_DOUBLE_EQ(verdict.sealed_error_pct, 8.5);
  EXPECT_DOUBLE_EQ(verdict.drift_pct, 2.0);
  EXPECT_DOUBLE_EQ(verdict.p_exceeds, 0.0);  // no round exceeds 15 %
  EXPECT_EQ(verdict.rounds, 10);
  EXPECT_EQ(verdict.rounds_needed, 0);
}

TEST(CellVerdict, NotApplicableHasNoFigures) {
  CellEvidence evidence;
  evidence.applicable = false;
  evidence.not_applicable_reason = "no t_host on a host-synchronous backend";
  const CellVerdict verdict = judge_cell(evidence, kOpen, DecisionRule{}, 0.05);
  EXPECT_EQ(verdict.not_applicable_reason, evidence.not_applicable_reason);
  EXPECT_TRUE(std::isnan(verdict.error_pct));
  EXPECT_TRUE(std::isnan(verdict.p_exceeds));
}

TEST(CellVerdict, RefusesMismatchedSeries) {
  CellEvidence evidence;
  evidence.errors.paired_pct = ramp(2);
  evidence.errors.sealed_pct = ramp(2, 9);
  evidence.errors.drift_pct.assign(10, 0.0);
  DecisionRule rule;
  rule.version = 2;
  EXPECT_THROW(judge_cell(evidence, kOpen, rule, 0.05), Error);
  evidence.log_ratios.paired.assign(10, {0.0});
  evidence.log_ratios.sealed.assign(9, {0.0});
  evidence.log_ratios.drift_pct.assign(10, 0.0);
  EXPECT_THROW(judge_cell(evidence, kOpen, DecisionRule{}, 0.05), Error);
}

RoundInterval interval(int rounds, double estimate, double low, double high) {
  RoundInterval i;
  i.formed = true;
  i.rounds = rounds;
  i.estimate = estimate;
  i.low = low;
  i.high = high;
  return i;
}

TEST(RoundsNeeded, ScalesTheFacingHalfWidthAsOneOverRootN) {
  // Below K: upper half-width 4 against a gap of 3: 10·(4/3)² = 17.8 → 18 rounds, 8 more.
  EXPECT_EQ(rounds_needed(interval(10, 12, 8, 16), 15, 0.05), 8);
  // Above K: lower half-width 4 against a gap of 3, the same.
  EXPECT_EQ(rounds_needed(interval(10, 18, 14, 30), 15, 0.05), 8);
  // A hair beyond: at least one more round.
  EXPECT_EQ(rounds_needed(interval(100, 14, 10, 15.0001), 15, 0.05), 1);
}

TEST(RoundsNeeded, DecidedNotFormedAndOnTheThreshold) {
  EXPECT_EQ(rounds_needed(interval(10, 5, 3, 9), 15, 0.05), 0);
  RoundInterval too_few;
  too_few.rounds = 5;
  EXPECT_EQ(rounds_needed(too_few, 15, 0.05), 1);  // 6 rounds form a 95 % interval
  EXPECT_EQ(rounds_needed(interval(10, 15, 10, 20), 15, 0.05), kRoundsNeededUnknown);
}

TEST(DecisionRuleOptions, RefusesBadValuesByName) {
  DecisionRule rule;
  EXPECT_NO_THROW(validate_decision_rule(rule));
  rule.kill_switch_pct = 0;
  EXPECT_THROW(validate_decision_rule(rule), UsageError);
  rule = {};
  rule.family_alpha = 1.0;
  EXPECT_THROW(validate_decision_rule(rule), UsageError);
  rule = {};
  rule.bootstrap.resamples = 0;
  EXPECT_THROW(validate_decision_rule(rule), UsageError);
  rule = {};
  rule.checkpoints = {8, 8, 32};
  EXPECT_THROW(validate_decision_rule(rule), UsageError);
  rule.checkpoints = {};
  EXPECT_THROW(validate_decision_rule(rule), UsageError);
  try {
    rule.checkpoints = {16, 8};
    validate_decision_rule(rule);
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("checkpoint 8"), std::string::npos);
  }
}

TEST(DecisionRuleOptions, Version2SplitsAlphaOverCellsAndCheckpoints) {
  DecisionRule rule;
  rule.version = 2;
  EXPECT_DOUBLE_EQ(decision_alpha(rule, 10, 8, false), 0.05 / 30);
  EXPECT_DOUBLE_EQ(decision_alpha(rule, 10, 32, true), 0.05 / 30);
  EXPECT_EQ(rule.max_rounds(), 32);
}

TEST(DecisionRuleOptions, Version3SpendsAlphaOverTheLooksAndSplitsItOverCells) {
  DecisionRule rule;  // checkpoints 8, 16, 32
  const double first = decision_alpha(rule, 4, 8, false);
  const double second = decision_alpha(rule, 4, 16, false);
  const double last = decision_alpha(rule, 4, 32, true);
  EXPECT_LT(first, second);
  EXPECT_LT(second, last);
  EXPECT_NEAR(4 * (first + second + last), 0.05, 1e-12);  // the looks spend the family α, no more
  // A study ended by its budget at 16 rounds spends what the first look left.
  EXPECT_NEAR(4 * (first + decision_alpha(rule, 4, 16, true)), 0.05, 1e-12);
  rule.version = 3;  // still judged: a file keeps the rule it sealed
  EXPECT_NO_THROW(validate_decision_rule(rule));
  rule.version = kDecisionRuleVersion + 1;
  EXPECT_THROW(validate_decision_rule(rule), UsageError);
  rule.version = 1;  // version 1 sealed no rule: its files are judged by the point rule
  EXPECT_THROW(validate_decision_rule(rule), UsageError);
}

TEST(DecisionRuleOptions, AnEarlyLookOfALongPlanFormsNoIntervalAndThrowsNothing) {
  DecisionRule rule;
  rule.checkpoints = {10, 20, 40, 80, 160, 200};
  const double early = decision_alpha(rule, 4, 10, false);  // O'Brien–Fleming at t = 0.05: about 1e-18 over 4
  EXPECT_GT(early, 0.0);
  EXPECT_LT(early, 1e-15);
  CellEvidence evidence;
  evidence.log_ratios.paired.assign(10, {0.01});
  evidence.log_ratios.sealed = evidence.log_ratios.paired;
  evidence.log_ratios.drift_pct.assign(10, 0.0);
  const CellVerdict verdict = judge_cell(evidence, kOpen, rule, early);
  EXPECT_EQ(verdict.reason, InconclusiveReason::too_few_rounds);
}

TEST(StopRule, StopsAtACheckpointWhenAllDecidedOrAtTheMaximum) {
  DecisionRule rule;  // checkpoints 8, 16, 32
  CellVerdict decided, open;
  decided.outcome = Outcome::holds;
  open.outcome = Outcome::inconclusive;
  const std::vector<CellVerdict> all_decided = {decided, decided};
  const std::vector<CellVerdict> one_open = {decided, open};
  EXPECT_TRUE(should_stop(rule, 16, all_decided));
  EXPECT_FALSE(should_stop(rule, 12, all_decided));  // not a checkpoint
  EXPECT_FALSE(should_stop(rule, 16, one_open));
  EXPECT_TRUE(should_stop(rule, 32, one_open));
  CellVerdict not_applicable;
  not_applicable.outcome = Outcome::not_applicable;
  EXPECT_TRUE(should_stop(rule, 8, std::vector<CellVerdict>{decided, not_applicable}));
}

}  // namespace
}  // namespace tpb
