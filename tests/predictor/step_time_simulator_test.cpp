// The quick start on the study-level simulator (step_time_simulator.hpp),
// judged by evaluate_rounds itself: at a true error of 0 the A/A on every
// rank and `ideal` at k = 2 all HOLD in at least 90 % of the launches at the
// quick start's N, on this machine's fitted noise and with one rank slower
// in most rounds (the anchors are the group's slowest rank, so the slower
// rank is priced in, not read as an error).
//
// Monte-Carlo allowance: a HOLD rate over n launches (fixed seeds, so the
// test is deterministic) may fall short of 90 % by at most 3 standard
// errors of a rate at 90 % (3 · √(0.9 · 0.1 / n): 2.0 points at n = 2000).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "log_ratio_generator.hpp"  // monte_carlo_se
#include "predictor/model_forms.hpp"
#include "predictor/statistics.hpp"
#include "predictor/study_design.hpp"
#include "step_time_simulator.hpp"

namespace tpb::sim::study_rates {
namespace {

constexpr int kStudies = 2000;
constexpr double kRequired = 0.90;
constexpr double kSigmas = 3.0;
constexpr int kQuickStartRounds = kDefaultRounds;  // N = 80, what `run` and the quick start declare

SimulatorConfig slow_rank_config() {
  SimulatorConfig config;
  // Issue 42's launch: rank 1 12.4 % slower in 81–86 % of the rounds.
  config.slow_rank = {.rank = 1, .slowdown = 0.12, .fraction = 0.85, .sojourn_visits = 20, .launch_probability = 1};
  return config;
}

struct StudyCase {
  const char* name;
  SimulatorConfig config;
};

std::vector<StudyCase> study_cases() {
  SimulatorConfig levels = slow_rank_config();
  levels.noise = two_level_noise();
  levels.slow_rank.launch_probability = 0.5;
  SimulatorConfig spread = slow_rank_config();  // issue 42's spread: paired d about 14 % and 10 % per round
  spread.noise.independent_log_sd[0][kStep2] = 0.12;
  spread.noise.independent_log_sd[1][kStep2] = 0.06;
  spread.noise.step2_skew = 0.5;
  spread.noise.step2_rounds = {0.03, 0.5};
  spread.noise.launch_log_sd = 0.05;
  return {{"fitted", SimulatorConfig{}},
          {"slow_rank", slow_rank_config()},
          {"two_levels_slow_rank_in_half", levels},
          {"issue42_spread_slow_rank_skew_ar1", spread}};
}

class QuickStartAtTrueZero : public testing::TestWithParam<StudyCase> {};

TEST_P(QuickStartAtTrueZero, AaAndIdealAllHoldInNinetyPercent) {
  SimulatorConfig config = GetParam().config;
  config.rounds = kQuickStartRounds;
  int all = 0;
  for (int s = 0; s < kStudies; ++s) {
    const SimulatedStudy study = simulate_study(config, 40000 + static_cast<std::uint64_t>(s));
    all += aa_and_ideal_hold(evaluate_rounds(study.registration, study.rounds));
  }
  const double rate = static_cast<double>(all) / kStudies;
  std::printf("%s, N = %d: A/A and ideal k=2 all HOLD in %.2f %% of %d\n", GetParam().name, kQuickStartRounds,
              rate * 100, kStudies);
  EXPECT_GE(rate, kRequired - kSigmas * monte_carlo_se(kRequired, kStudies));
}

INSTANTIATE_TEST_SUITE_P(Noise, QuickStartAtTrueZero, testing::ValuesIn(study_cases()),
                         [](const auto& case_info) { return std::string(case_info.param.name); });

// One study laid out as the rule reads it: N rounds, every rank in every
// per-rank map, k = 1 registered without a collective term, the design
// sealed at rule 6.
TEST(StepTimeSimulator, FillsEveryMeasurementTheRuleReads) {
  SimulatorConfig config = slow_rank_config();
  config.rounds = 12;
  const SimulatedStudy study = simulate_study(config, 1);
  ASSERT_EQ(study.rounds.size(), 12u);
  EXPECT_EQ(study.registration.design.rounds, 12);
  EXPECT_EQ(study.registration.design.rule.version, kDecisionRuleVersion);
  EXPECT_TRUE(study.slow_launch);
  for (int b : kBatches) {
    const CellInputs& one = find_cell_inputs(study.registration, 1, b, kContext);
    EXPECT_EQ(one.inputs.n_ar, 0);
    EXPECT_EQ(one.inputs.n_ag, 0);
    EXPECT_EQ(collective_term_us(one.inputs), 0.0);
    EXPECT_GT(collective_term_us(find_cell_inputs(study.registration, 2, b, kContext).inputs), 0.0);
    for (const RoundObservation& round : study.rounds) {
      EXPECT_EQ(round.step1_rank_us.at({b, kContext}).size(), std::size_t{kRanks});
      EXPECT_EQ(round.compute1_rank_us.at({b, kContext}).size(), std::size_t{kRanks});
      EXPECT_EQ(round.replay_rank_us.at({2, b, kContext}).size(), std::size_t{kRanks});
      EXPECT_EQ(round.host_rank_us.at({1, b, kContext}).size(), std::size_t{kRanks});
      EXPECT_EQ(round.nocomm_rank_us.at({2, b, kContext}).size(), std::size_t{kRanks});
      // The TP-1 step is group 0's, rank 0; the TP-2 step waits for its slower rank.
      EXPECT_EQ(round.step_us.at({1, b, kContext}), round.step1_rank_us.at({b, kContext})[0]);
      const std::vector<double>& waits = round.rank_collective_us.at({2, b, kContext});
      EXPECT_GT(round.step_us.at({2, b, kContext}), *std::max_element(waits.begin(), waits.end()));
    }
  }
}

// A slow rank is priced in: the anchors are the group's slowest, so at a true
// error of 0 the median paired error of `ideal` k = 2 over launches stays
// near 0, while the same rounds priced on rank 0's anchors alone read the
// slow rank's 12 % as the form's error. 200 launches; the tolerances are
// several times the spread of a median over them.
TEST(StepTimeSimulator, SlowRankIsPricedOnTheGroupMax) {
  SimulatorConfig config = slow_rank_config();
  std::vector<double> group_max, rank0;
  for (int s = 0; s < 200; ++s) {
    const SimulatedStudy study = simulate_study(config, 700 + static_cast<std::uint64_t>(s));
    const CellInputs& sealed = find_cell_inputs(study.registration, 2, 1, kContext);
    std::vector<double> d_max, d_rank0;
    for (const RoundObservation& round : study.rounds) {
      const double measured = round.step_us.at({2, 1, kContext});
      d_max.push_back(std::log(measured / predict_ideal(paired_inputs(sealed, round)).t_step_us));
      FormInputs in = sealed.inputs;
      in.t_compute1_us = round.compute1_rank_us.at({1, kContext})[0];
      d_rank0.push_back(std::log(measured / predict_ideal(in).t_step_us));
    }
    group_max.push_back(std::expm1(median(d_max)));
    rank0.push_back(std::expm1(median(d_rank0)));
  }
  std::printf("slow rank 1: ideal k=2 median error %.2f %% on the group max, %.2f %% on rank 0\n",
              median(group_max) * 100, median(rank0) * 100);
  EXPECT_NEAR(median(group_max), 0.0, 0.02);
  EXPECT_GT(median(rank0), 0.08);
}

}  // namespace
}  // namespace tpb::sim::study_rates
