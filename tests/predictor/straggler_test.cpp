// The straggler term: a hand-computed round, a systematic slowdown of one
// rank named as that rank, and a random imbalance that warns of nothing and,
// through evaluate_rounds, withholds no verdict.
#include <gtest/gtest.h>

#include "predictor/straggler.hpp"
#include "step_time_simulator.hpp"

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
  // An error's lower bound L in % of the prediction is L / (1 + L) of the step:
  // 10 % → 9.1 % of the step, within the straggler's 10 %; 12 % → 10.7 %,
  // beyond it but within rank 0's 20 %; 30 % → 23.1 %, beyond both.
  EXPECT_EQ(straggler_explanation(term, 10.0), "straggler");
  EXPECT_EQ(straggler_explanation(term, 12.0), "rank 0 slower");
  EXPECT_EQ(straggler_explanation(term, 30.0), "");
}

TEST(StragglerTerm, SlowdownBelowHalfTheKillSwitchIsNoWarning) {
  const std::vector<StragglerRound> rounds(12, StragglerRound{{100.0}, {{10.0, 15.0}}});
  EXPECT_EQ(straggler_term(rounds, 0.05, 15.0).systematic_rank, -1);  // 5 % ≤ 7.5 %
}

// Few studies: each is judged on 60 rounds, the random case twice.
constexpr int kStudies = 20;
constexpr int kRandomStudies = 12;

DecisionRule quick_start_rule() {
  DecisionRule rule;
  rule.checkpoints = checkpoints_between(10, 60);
  rule.bootstrap.resamples = 2000;  // as in step_time_simulator_test.cpp
  return rule;
}

TEST(StragglerTerm, SystematicSlowdownOfOneRankIsNamed) {
  // Rank 1 computes 20 % slower in every TP-2 step of a study on this machine's noise.
  sim::SimulatorConfig config;
  config.rank1_slowdown = 0.20;
  int named = 0;
  for (int i = 0; i < kStudies; ++i) {
    const sim::SimulatedStudy study = sim::simulate_study(config, 5000 + static_cast<std::uint64_t>(i));
    RoundsDesign design;
    design.rule = quick_start_rule();
    const RoundsEvaluation e = evaluate_rounds(study.registration, design, study.rounds, true);
    ASSERT_TRUE(e.straggler.count(2));
    named += e.straggler.at(2).systematic_rank == 1;
  }
  EXPECT_EQ(named, kStudies);
}

TEST(StragglerTerm, RandomImbalanceWarnsOfNothingAndWithholdsNoVerdict) {
  // Each rank ±7 % (log-SD) on its own in every visit, a form 5 % off: no
  // rank is named, and every verdict is that of the same rounds with every
  // per-rank time removed, so neither the straggler term nor the same-node
  // spread withholds a HOLDS (or any other verdict).
  sim::SimulatorConfig config;
  config.noise.rank_log_sd = 0.07;
  int warned = 0;
  for (int i = 0; i < kRandomStudies; ++i) {
    sim::SimulatedStudy study = sim::simulate_study(config, 6000 + static_cast<std::uint64_t>(i));
    const sim::StudyOutcome with_ranks = sim::judge_study(study, quick_start_rule());
    ASSERT_TRUE(with_ranks.evaluation.straggler.count(2));
    warned += with_ranks.evaluation.straggler.at(2).systematic_rank >= 0;
    for (RoundObservation& round : study.rounds) {
      round.rank_collective_us.clear();
      round.same_node_rank_us.clear();
    }
    const sim::StudyOutcome without = sim::judge_study(study, quick_start_rule());
    EXPECT_EQ(with_ranks.rounds, without.rounds);
    ASSERT_EQ(with_ranks.evaluation.cells.size(), without.evaluation.cells.size());
    for (std::size_t c = 0; c < without.evaluation.cells.size(); ++c)
      EXPECT_EQ(with_ranks.evaluation.cells[c].verdict.outcome, without.evaluation.cells[c].verdict.outcome);
  }
  EXPECT_EQ(warned, 0);
}

}  // namespace
}  // namespace tpb
