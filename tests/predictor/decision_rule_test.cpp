// Rule version 6 against hand-computed values: the margin, the rule's
// validation, block medians, one cell judged at and beside the boundaries,
// and a form at k over its cells (the A/A gate included).
//
// Most cases use 80 rounds made of 16 blocks of 5 equal rounds, so that the
// block medians are the 16 values v_1 < … < v_16 themselves. At α = 0.05 and
// m = 4 the order statistics are, by the binomial by hand:
//   1 − 2α = 0.90: P(Bin(16, ½) ≤ 4) = 2517/65536 = 0.0384 ≤ 0.05 < P(≤ 5) = 0.1051,
//                  so [v_5, v_12], coverage 1 − 2 · 2517/65536 = 92.32 %;
//   1 − α/m = 0.9875: P(≤ 2) = 137/65536 = 0.00209 ≤ 0.00625 < P(≤ 3) = 0.01064,
//                  so [v_3, v_14], coverage 1 − 274/65536 = 99.58 %.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "predictor/decision_rule.hpp"

namespace tpb {
namespace {

const double kDelta = DecisionRule{}.margin_log();  // ln(1 + 0.15), the rule's own rounding

// 16 blocks of 5 equal rounds, block i (1-based) at `value(i)`; the blocks
// are laid out in a shuffled order so that no order matters.
template <typename F>
std::vector<double> sixteen_blocks(F value) {
  std::vector<double> rounds;
  for (int j = 0; j < 16; ++j) {
    const int i = 1 + (j * 5) % 16;  // 1, 6, 11, 16, 5, …: a permutation of 1..16
    for (int r = 0; r < 5; ++r) rounds.push_back(value(i));
  }
  return rounds;
}

TEST(DecisionRule, MarginIsSymmetricInLogs) {
  const DecisionRule rule;
  EXPECT_EQ(rule.version, 6);
  EXPECT_EQ(rule.block_rounds, 5);
  EXPECT_DOUBLE_EQ(rule.margin_log(), std::log(1.15));  // 0.1398: +15 % and −13.0 %
}

TEST(DecisionRule, ValidationRefusesOtherVersionsAndBadValues) {
  EXPECT_NO_THROW(validate_decision_rule(DecisionRule{}));
  const auto with = [](auto change) {
    DecisionRule rule;
    change(rule);
    return rule;
  };
  EXPECT_THROW(validate_decision_rule(with([](DecisionRule& r) { r.version = 5; })), UsageError);
  EXPECT_THROW(validate_decision_rule(with([](DecisionRule& r) { r.kill_switch_pct = 0; })), UsageError);
  EXPECT_THROW(validate_decision_rule(with([](DecisionRule& r) { r.family_alpha = 0.5; })), UsageError);
  EXPECT_THROW(validate_decision_rule(with([](DecisionRule& r) { r.block_rounds = 4; })), UsageError);
  EXPECT_THROW(validate_decision_rule(with([](DecisionRule& r) { r.block_rounds = 0; })), UsageError);
  EXPECT_NO_THROW(validate_decision_rule(with([](DecisionRule& r) { r.block_rounds = 1; })));
}

TEST(BlockMedians, ConsecutiveBlocksAndNoTrailingPartialBlock) {
  const std::vector<double> rounds = {5, 1, 3, 2, 4, 10, 9, 8, 7, 6, 100, 200};
  EXPECT_EQ(block_medians(rounds, 5), (std::vector<double>{3, 8}));
  EXPECT_EQ(block_medians(rounds, 1), rounds);
  EXPECT_EQ(block_medians(rounds, 3), (std::vector<double>{3, 4, 8, 100}));
  EXPECT_TRUE(block_medians(std::vector<double>{1, 2, 3, 4}, 5).empty());
  EXPECT_THROW(block_medians(rounds, 0), Error);
}

TEST(JudgeCell, OrderStatisticsOfSixteenBlocksByHand) {
  // v_i = (i − 8.5) / 100: the hold interval [v_5, v_12] = [−0.035, 0.035].
  const CellJudgement cell = judge_cell(sixteen_blocks([](int i) { return (i - 8.5) / 100; }), DecisionRule{}, 4);
  EXPECT_EQ(cell.rounds, 80);
  ASSERT_TRUE(cell.hold.formed);
  ASSERT_TRUE(cell.falsify.formed);
  EXPECT_EQ(cell.hold.rounds, 16);
  EXPECT_DOUBLE_EQ(cell.hold.low, -0.035);
  EXPECT_DOUBLE_EQ(cell.hold.high, 0.035);
  EXPECT_NEAR(cell.hold.coverage, 1.0 - 2.0 * 2517 / 65536, 1e-12);
  EXPECT_DOUBLE_EQ(cell.falsify.low, -0.055);
  EXPECT_DOUBLE_EQ(cell.falsify.high, 0.055);
  EXPECT_NEAR(cell.falsify.coverage, 1.0 - 2.0 * 137 / 65536, 1e-12);
  EXPECT_EQ(cell.outcome, Outcome::holds);
  EXPECT_EQ(cell.reason, InconclusiveReason::none);
  EXPECT_NEAR(cell.median_log, 0.0, 1e-15);  // the 40th and 41st rounds: v_8 and v_9
  EXPECT_NEAR(cell.error_pct, 0.0, 1e-12);
  // The largest |error| the hold interval allows: e^0.035 − 1.
  EXPECT_NEAR(cell_error_bound_pct(cell), std::expm1(0.035) * 100, 1e-12);
}

TEST(JudgeCell, EstimateIsTheMedianBesideTheMeanRatio) {
  // Rounds at ln 1.0, ln 1.1, ln 1.5 (one block repeated 16 times): median
  // ln 1.1, so +10 %; the mean ratio (1.0 + 1.1 + 1.1 + 1.1 + 1.5) / 5 = 1.16.
  std::vector<double> rounds;
  for (int b = 0; b < 16; ++b)
    for (double ratio : {1.1, 1.0, 1.5, 1.1, 1.1}) rounds.push_back(std::log(ratio));
  const CellJudgement cell = judge_cell(rounds, DecisionRule{}, 4);
  EXPECT_NEAR(cell.error_pct, 10.0, 1e-9);
  EXPECT_NEAR(cell.mean_ratio_pct, 16.0, 1e-9);
  EXPECT_EQ(cell.outcome, Outcome::holds);
}

struct BoundaryCase {
  const char* name;
  int position;   // the block whose median is placed exactly at `target`
  double target;  // the others at target + (i − position) / 100
  Outcome outcome;
  InconclusiveReason reason;
};

// The hold interval is [v_5, v_12], the falsify interval [v_3, v_14]. HOLDS
// needs the first strictly inside (−δ, δ); FALSIFIED the second strictly
// outside [−δ, δ]; an end exactly on ±δ does neither.
const BoundaryCase kBoundaryCases[] = {
    {"HoldUpperJustInside", 12, kDelta - 1e-9, Outcome::holds, InconclusiveReason::none},
    {"HoldUpperOnTheMargin", 12, kDelta, Outcome::inconclusive, InconclusiveReason::straddles_margin},
    {"HoldLowerOnTheMargin", 5, -kDelta, Outcome::inconclusive, InconclusiveReason::straddles_margin},
    {"HoldLowerJustInside", 5, -kDelta + 1e-9, Outcome::holds, InconclusiveReason::none},
    {"MedianOnTheMargin", 8, kDelta, Outcome::inconclusive, InconclusiveReason::straddles_margin},
    {"FalsifyLowerOnTheMargin", 3, kDelta, Outcome::inconclusive, InconclusiveReason::straddles_margin},
    {"FalsifyLowerJustBeyond", 3, kDelta + 1e-9, Outcome::falsified, InconclusiveReason::none},
    {"FalsifyUpperOnTheMargin", 14, -kDelta, Outcome::inconclusive, InconclusiveReason::straddles_margin},
    {"FalsifyUpperJustBeyond", 14, -kDelta - 1e-9, Outcome::falsified, InconclusiveReason::none},
};

class JudgeCellAtTheBoundary : public testing::TestWithParam<BoundaryCase> {};

TEST_P(JudgeCellAtTheBoundary, GivesTheOutcomeAndReason) {
  const BoundaryCase& c = GetParam();
  const CellJudgement cell = judge_cell(
      sixteen_blocks([&c](int i) { return i == c.position ? c.target : c.target + (i - c.position) / 100.0; }),
      DecisionRule{}, 4);
  EXPECT_EQ(to_string(cell.outcome), to_string(c.outcome));
  EXPECT_EQ(to_string(cell.reason), to_string(c.reason));
}

INSTANTIATE_TEST_SUITE_P(Cases, JudgeCellAtTheBoundary, testing::ValuesIn(kBoundaryCases),
                         [](const auto& case_info) { return std::string(case_info.param.name); });

TEST(JudgeAbsoluteCell, TheRuleOnTheResidualShiftedByTheLaunchLevel) {
  // Residual e_r = (r − 8.5) / 100 per block as above; the level climbs
  // from 0 to 0.158 over the 80 rounds (ℓ_r = r / 500, mean 0.079), and
  // d_r = e_r + ℓ_r. Judged on e and shifted by ℓ̄: hold [0.044, 0.114],
  // falsify [0.024, 0.134], estimate 0.079.
  const std::vector<double> residual = sixteen_blocks([](int i) { return (i - 8.5) / 100; });
  std::vector<double> level(residual.size()), d(residual.size());
  for (std::size_t r = 0; r < d.size(); ++r) {
    level[r] = static_cast<double>(r) / 500;
    d[r] = residual[r] + level[r];
  }
  const CellJudgement cell = judge_absolute_cell(d, level, DecisionRule{}, 4);
  EXPECT_NEAR(cell.level_log, 0.079, 1e-12);
  EXPECT_NEAR(cell.median_log, 0.079, 1e-12);
  EXPECT_NEAR(cell.error_pct, std::expm1(0.079) * 100, 1e-9);
  EXPECT_NEAR(cell.hold.low, 0.044, 1e-12);
  EXPECT_NEAR(cell.hold.high, 0.114, 1e-12);
  EXPECT_NEAR(cell.falsify.low, 0.024, 1e-12);
  EXPECT_NEAR(cell.falsify.high, 0.134, 1e-12);
  EXPECT_EQ(cell.outcome, Outcome::holds);  // inside ±ln 1.15 = ±0.1398
  // The same residual at a level 0.2 higher is beyond the margin at 1 − α/m.
  for (std::size_t r = 0; r < d.size(); ++r) {
    level[r] += 0.2;
    d[r] += 0.2;
  }
  EXPECT_EQ(judge_absolute_cell(d, level, DecisionRule{}, 4).outcome, Outcome::falsified);
  EXPECT_THROW(judge_absolute_cell(d, std::vector<double>(3, 0.0), DecisionRule{}, 4), Error);
}

TEST(JudgeCell, TheFamilySizeWidensOnlyTheFalsifyInterval) {
  // m = 1: 1 − α = 0.95 on 16 blocks: P(Bin(16, ½) ≤ 3) = 0.0106 ≤ 0.025 <
  // P(≤ 4) = 0.0384, so [v_4, v_13] = shift ± 0.045; m = 4: [v_3, v_14] =
  // shift ± 0.055. The hold interval is the same at every m.
  const auto rounds = sixteen_blocks([](int i) { return kDelta + 0.05 + (i - 8.5) / 100; });
  const CellJudgement one = judge_cell(rounds, DecisionRule{}, 1);
  const CellJudgement four = judge_cell(rounds, DecisionRule{}, 4);
  EXPECT_NEAR(one.falsify.low, kDelta + 0.005, 1e-12);
  EXPECT_EQ(one.outcome, Outcome::falsified);
  EXPECT_NEAR(four.falsify.low, kDelta - 0.005, 1e-12);
  EXPECT_EQ(four.outcome, Outcome::inconclusive);
  EXPECT_DOUBLE_EQ(one.hold.low, four.hold.low);
}

TEST(JudgeCell, TooFewBlocksForTheHoldInterval) {
  // 24 rounds: 4 blocks; even [min, max] of 4 covers only 1 − 2/16 = 87.5 % < 90 %.
  const CellJudgement cell = judge_cell(std::vector<double>(24, 0.0), DecisionRule{}, 4);
  EXPECT_FALSE(cell.hold.formed);
  EXPECT_FALSE(cell.falsify.formed);
  EXPECT_EQ(cell.outcome, Outcome::inconclusive);
  EXPECT_EQ(cell.reason, InconclusiveReason::too_few_rounds);
  EXPECT_TRUE(std::isnan(cell_error_bound_pct(cell)));
  // 25 rounds: 5 blocks form the hold interval (1 − 2/32 = 93.75 %), not yet
  // the falsify one (8 blocks at α/m = 0.0125), so a cell at 0 already HOLDS.
  const CellJudgement five = judge_cell(std::vector<double>(25, 0.0), DecisionRule{}, 4);
  EXPECT_TRUE(five.hold.formed);
  EXPECT_FALSE(five.falsify.formed);
  EXPECT_EQ(five.outcome, Outcome::holds);
  // Wholly beyond the margin at 1 − 2α with the falsify interval not yet
  // formed: more blocks, not the margin, would settle it.
  const CellJudgement beyond = judge_cell(std::vector<double>(30, std::log(1.40)), DecisionRule{}, 4);
  EXPECT_TRUE(beyond.hold.formed);
  EXPECT_FALSE(beyond.falsify.formed);
  EXPECT_EQ(beyond.outcome, Outcome::inconclusive);
  EXPECT_EQ(beyond.reason, InconclusiveReason::too_few_rounds);
  EXPECT_THROW(judge_cell(std::vector<double>{}, DecisionRule{}, 4), Error);
  EXPECT_THROW(judge_cell(std::vector<double>{0.0, NAN}, DecisionRule{}, 4), Error);
  EXPECT_THROW(judge_cell(std::vector<double>{0.0}, DecisionRule{}, 0), Error);
}

// Cells judged from constant rounds: every interval is [d, d].
CellJudgement cell_at(double error_pct, int rounds = 80) {
  return judge_cell(std::vector<double>(static_cast<std::size_t>(rounds), std::log1p(error_pct / 100.0)),
                    DecisionRule{}, 4);
}

TEST(JudgeFormAtK, HoldsWhenEveryCellHoldsAndTheAaHolds) {
  const FormAtK form = judge_form_at_k({cell_at(2.0), cell_at(-6.0)}, true);
  EXPECT_EQ(form.outcome, Outcome::holds);
  EXPECT_EQ(form.reason, InconclusiveReason::none);
  EXPECT_EQ(form.worst_cell, 1);
  EXPECT_NEAR(form.mape_pct, 4.0, 1e-9);
  EXPECT_NEAR(form.error_bound_pct, 6.0, 1e-9);  // −6 % exactly: e^{ln 0.94} − 1
}

TEST(JudgeFormAtK, TheAaWithholdsHoldsOnly) {
  const FormAtK held = judge_form_at_k({cell_at(2.0), cell_at(3.0)}, false);
  EXPECT_EQ(held.outcome, Outcome::inconclusive);
  EXPECT_EQ(held.reason, InconclusiveReason::aa_not_held);
  const FormAtK falsified = judge_form_at_k({cell_at(2.0), cell_at(40.0)}, false);
  EXPECT_EQ(falsified.outcome, Outcome::falsified);
  EXPECT_EQ(falsified.reason, InconclusiveReason::none);
}

TEST(JudgeFormAtK, SomeCellFalsifiedFalsifiesTheForm) {
  const FormAtK form = judge_form_at_k({cell_at(40.0), cell_at(2.0), cell_at(15.0)}, true);
  EXPECT_EQ(form.outcome, Outcome::falsified);
  EXPECT_EQ(form.worst_cell, 0);
  EXPECT_NEAR(form.mape_pct, 19.0, 1e-9);
  // A bad cell is not hidden by a mean: 0 % and 25 % do not HOLD.
  EXPECT_EQ(judge_form_at_k({cell_at(0.0), cell_at(25.0)}, true).outcome, Outcome::falsified);
}

TEST(JudgeFormAtK, AnOpenCellGivesItsReason) {
  // 15 % exactly: the interval [δ, δ] touches the margin.
  const FormAtK straddles = judge_form_at_k({cell_at(2.0), cell_at(15.0)}, true);
  EXPECT_EQ(straddles.outcome, Outcome::inconclusive);
  EXPECT_EQ(straddles.reason, InconclusiveReason::straddles_margin);
  const FormAtK few = judge_form_at_k({cell_at(2.0, 20), cell_at(15.0)}, true);
  EXPECT_EQ(few.reason, InconclusiveReason::too_few_rounds);  // the first open cell's
  EXPECT_TRUE(std::isnan(few.error_bound_pct));
  // The A/A failing as well does not hide a cell's own reason.
  EXPECT_EQ(judge_form_at_k({cell_at(2.0), cell_at(15.0)}, false).reason, InconclusiveReason::straddles_margin);
  EXPECT_THROW(judge_form_at_k({}, true), Error);
}

TEST(DecisionRuleText, NamesTheOutcomesAndReasons) {
  EXPECT_EQ(to_string(Outcome::holds), "HOLDS");
  EXPECT_EQ(to_string(Outcome::falsified), "FALSIFIED");
  EXPECT_EQ(to_string(Outcome::inconclusive), "INCONCLUSIVE");
  EXPECT_EQ(to_string(Outcome::not_applicable), "NOT_APPLICABLE");
  EXPECT_EQ(to_string(InconclusiveReason::aa_not_held), "aa_not_held");
  EXPECT_EQ(to_string(InconclusiveReason::too_few_rounds), "too_few_rounds");
}

}  // namespace
}  // namespace tpb
