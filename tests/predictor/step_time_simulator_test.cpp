// The verdict rule on studies simulated with this machine's noise
// (fitted_noise: tests/predictor/noise/), judged by evaluate_rounds at the
// quick start's looks: --rounds 10:60 gives checkpoints 10, 20, 40, 60;
// family α 0.05 over the 4 judged cells on CPU (ideal, replay, no_speedup at
// k = 2, and k = 1's one prediction); kill switch 15 %. The true error is the
// TP-2 step against `ideal` (and `replay`, the same prediction here) on
// noise-free anchors, with one sign per study.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "predictor/form_error.hpp"
#include "predictor/round_plan.hpp"
#include "predictor/study_design.hpp"
#include "step_time_simulator.hpp"

namespace tpb::sim {
namespace {

constexpr int kStudies = 60;

// The sealed rule of the quick start. Every interval resamples at least
// max(sealed, 50/α) times (resamples_for); a sealed 2000 instead of 10,000
// changes only the last look's count (about 6,000 at its α ≈ 0.05/4 − the
// earlier looks' share) and keeps 25 resampled values in each tail, which is
// what the percentile bound rests on.
DecisionRule quick_start_rule() {
  DecisionRule rule;
  rule.checkpoints = checkpoints_between(10, 60);
  rule.bootstrap.resamples = 2000;
  return rule;
}

struct Rates {
  double holds = 0, falsified = 0, inconclusive = 0;  // ideal at k = 2
  double aa_holds = 0;                                 // ideal at k = 1
  double no_speedup_falsified = 0;                     // at k = 2
  double mean_rounds = 0;
  std::map<std::string, int> reasons;                  // of the INCONCLUSIVE ideal k = 2 verdicts
};

Rates judge_all(const SimulatorConfig& config, const DecisionRule& rule, std::uint64_t first_seed, int studies) {
  Rates rates;
  for (int i = 0; i < studies; ++i) {
    const StudyOutcome outcome = judge_study(simulate_study(config, first_seed + static_cast<std::uint64_t>(i)), rule);
    const CellVerdict& ideal = verdict_of(outcome.evaluation, "ideal", 2);
    rates.holds += ideal.outcome == Outcome::holds;
    rates.falsified += ideal.outcome == Outcome::falsified;
    rates.inconclusive += ideal.outcome == Outcome::inconclusive;
    if (ideal.outcome == Outcome::inconclusive) ++rates.reasons[std::string(to_string(ideal.reason))];
    rates.aa_holds += verdict_of(outcome.evaluation, "ideal", 1).outcome == Outcome::holds;
    rates.no_speedup_falsified += verdict_of(outcome.evaluation, "no_speedup", 2).outcome == Outcome::falsified;
    rates.mean_rounds += outcome.rounds;
  }
  for (double* rate : {&rates.holds, &rates.falsified, &rates.inconclusive, &rates.aa_holds,
                       &rates.no_speedup_falsified, &rates.mean_rounds})
    *rate /= studies;
  return rates;
}

void print(const char* what, const Rates& r) {
  std::string reasons;
  for (const auto& [reason, count] : r.reasons) reasons += " " + reason + ":" + std::to_string(count);
  std::printf("%s: ideal k=2 HOLDS %.1f %%, FALSIFIED %.1f %%, INCONCLUSIVE %.1f %% (%s ); A/A HOLDS %.1f %%; "
              "no_speedup k=2 FALSIFIED %.1f %%; mean rounds %.1f\n",
              what, r.holds * 100, r.falsified * 100, r.inconclusive * 100, reasons.c_str(), r.aa_holds * 100,
              r.no_speedup_falsified * 100, r.mean_rounds);
}

// Each case is simulated once per process and shared by the tests that read it.
const Rates& quick_start(double error_b1, double error_b4) {
  static std::map<std::pair<double, double>, Rates> done;
  const auto key = std::make_pair(error_b1, error_b4);
  auto found = done.find(key);
  if (found == done.end()) {
    SimulatorConfig config;
    config.true_error = {error_b1, error_b4};
    found = done.emplace(key, judge_all(config, quick_start_rule(), 1000, kStudies)).first;
    const std::string what = "true error " + std::to_string(error_b1 * 100).substr(0, 4) + " % / " +
                             std::to_string(error_b4 * 100).substr(0, 4) + " %";
    print(what.c_str(), found->second);
  }
  return found->second;
}

// The targets at the quick start's looks, on the noise fitted to an idle run
// of this machine (tests/predictor/noise/: 700 consecutive steps and an
// 80-round quick-start study; a common part of 14.4 % per round moving as an
// AR(1) at 0.83 from round to round, flicker 3.9 %, rank imbalance 4.0 %,
// drift 0.07 % per round). With the common part drawn anew every round, the
// power check's previous-round anchor saw it twice and withheld a third of
// the HOLDS; moving slowly, as it does on the machine, it does not.
TEST(StepTimeSimulator, AaHolds) {
  const Rates& rates = quick_start(0.0, 0.0);
  EXPECT_GE(rates.aa_holds, 0.95);
  EXPECT_GE(rates.holds, 0.95);
  EXPECT_EQ(rates.falsified, 0.0);
}

TEST(StepTimeSimulator, FivePercentErrorHolds) {
  const Rates& rates = quick_start(0.05, 0.05);
  EXPECT_GE(rates.holds, 0.95);
  EXPECT_EQ(rates.falsified, 0.0);
}

TEST(StepTimeSimulator, TwelveAndTwoPercentOverTheGridHolds) {
  // Like `ideal` at k = 2 here: 12 % off at batch 1, 2 % at batch 4 (mean 7 %).
  const Rates& rates = quick_start(0.12, 0.02);
  EXPECT_GE(rates.holds, 0.80);
  EXPECT_EQ(rates.falsified, 0.0);
}

TEST(StepTimeSimulator, ErrorAtTheKillSwitchIsRarelyDecided) {
  const Rates& rates = quick_start(0.15, 0.15);
  EXPECT_LE(rates.holds, 0.05);
  EXPECT_LE(rates.falsified, 0.05);
}

TEST(StepTimeSimulator, ThirtyPercentErrorIsFalsified) {
  const Rates& rates = quick_start(0.30, 0.30);
  EXPECT_GE(rates.falsified, 0.95);
  EXPECT_EQ(rates.holds, 0.0);
}

TEST(StepTimeSimulator, NoSpeedupIsFalsifiedAtKEqualsTwo) {
  // The negative control in every case: t_compute(1) + coll against a step of about half that.
  for (const auto& errors : {std::make_pair(0.0, 0.0), std::make_pair(0.05, 0.05), std::make_pair(0.30, 0.30)})
    EXPECT_GE(quick_start(errors.first, errors.second).no_speedup_falsified, 0.99);
}

// A right form's cells (ideal and replay at k = 1 and 2) over kStudies
// simulated studies, judged under rule `version`: how many the drift gate
// withholds, and how many the calibration-time evaluation reads FALSIFIED.
struct DriftGateCount {
  int drift = 0;
  int sealed_falsified = 0;
};
constexpr int kRightFormCells = 4 * kStudies;

DriftGateCount drift_gate_count(const SimulatorConfig& config, int version) {
  DecisionRule rule = quick_start_rule();
  rule.version = version;
  DriftGateCount count;
  for (int i = 0; i < kStudies; ++i) {
    const RoundsEvaluation e =
        judge_study(simulate_study(config, 1000 + static_cast<std::uint64_t>(i)), rule).evaluation;
    for (const char* form : {"ideal", "replay"})
      for (int k : {1, 2}) {
        const CellVerdict& v = verdict_of(e, form, k);
        count.drift += v.reason == InconclusiveReason::drift;
        count.sealed_falsified += v.sealed_outcome == Outcome::falsified;
      }
  }
  std::printf("a right form under rule version %d: calibration-time evaluation FALSIFIED in %.1f %% of cells, "
              "drift gate in %.1f %%\n",
              version, 100.0 * count.sealed_falsified / kRightFormCells, 100.0 * count.drift / kRightFormCells);
  return count;
}

TEST(StepTimeSimulator, CalibrationTimeEvaluationAllowsForTheLevelTheMachineMovesThrough) {
  // The sealed numbers are medians of 10 calibration rounds at one stretch of
  // a level that wanders (the fitted common part: 14 % per round, AR(1) over
  // rounds). Judged as exact (version 3), a right form's calibration-time
  // evaluation is often definite against the paired one, and the drift gate
  // withholds the verdict; since version 4 the level the predictions moved
  // through is resampled, so that only what the level cannot explain
  // contradicts.
  SimulatorConfig config;
  config.true_error = {0.0, 0.0};
  const DriftGateCount v3 = drift_gate_count(config, 3);
  const DriftGateCount now = drift_gate_count(config, kDecisionRuleVersion);
  EXPECT_LE(now.sealed_falsified, kRightFormCells / 20);
  EXPECT_LE(now.drift, kRightFormCells / 20);
  EXPECT_GT(v3.drift, now.drift);
}

TEST(StepTimeSimulator, TwoLevelsReadAsDriftOnlyWhereTheRoundsNeverShowTheirDifference) {
  // The machine of docs/STATISTICS.md ("Two levels"), fitted by
  // noise/fit_two_levels.py to ten quick-start reruns: rounds sit at one of
  // two levels 1.44x apart (ln 0.364), changing at 4.8 % of rounds, and
  // within a level move by 2.8 % with a lag-1 autocorrelation of 0.23 (the
  // common part here; the rest of the model as fitted). Where the
  // calibration met one level and the measurement mostly the other, version
  // 4's draws (each round's deviation from the median level, nearly all at
  // the measurement's level) pushed the sealed error away from the paired
  // one, and the drift gate withheld a right form. Version 5 draws the
  // difference between two rounds' levels, which points both ways.
  SimulatorConfig config;
  config.true_error = {0.0, 0.0};
  config.noise.common = {0.028, 0.23};
  config.noise.two_levels = {0.364, 0.048};
  const DriftGateCount v4 = drift_gate_count(config, 4);
  const DriftGateCount v5 = drift_gate_count(config, 5);
  EXPECT_LT(v5.drift, v4.drift);
  EXPECT_LE(v5.drift, kRightFormCells / 20);
}

TEST(StepTimeSimulator, MedianOfMapeRarelyHoldsTwoPointsBelowTheKillSwitch) {
  // Version 2's statistic, the median over rounds of the per-round MAPE,
  // estimates the size of |error + noise|: on the same simulated rounds of a
  // form 13 % off in both cells, one look at 200 rounds, its interval rule
  // (before any gate) rarely HOLDS, where the median-first statistic does.
  constexpr int kRegressionStudies = 30;
  SimulatorConfig config;
  config.true_error = {0.13, 0.13};
  config.measurement_rounds = 200;
  DecisionRule v3 = quick_start_rule();
  v3.checkpoints = {200};
  DecisionRule v2 = v3;
  v2.version = 2;
  v2.bootstrap = BlockBootstrapOptions{200};  // version 2's p_exceeds only; it never decides
  int v2_holds = 0, v3_holds = 0;
  double v2_error = 0, v3_error = 0;
  for (int i = 0; i < kRegressionStudies; ++i) {
    const SimulatedStudy study = simulate_study(config, 3000 + static_cast<std::uint64_t>(i));
    const CellVerdict new_rule = verdict_of(judge_study(study, v3).evaluation, "ideal", 2);
    const CellVerdict old_rule = verdict_of(judge_study(study, v2).evaluation, "ideal", 2);
    v3_holds += new_rule.paired_outcome == Outcome::holds;
    v2_holds += old_rule.paired_outcome == Outcome::holds;
    v3_error += new_rule.error_pct / kRegressionStudies;
    v2_error += old_rule.error_pct / kRegressionStudies;
  }
  std::printf("13 %% below K, 200 rounds: median-first HOLDS %.1f %% (mean error %.1f %%), median of MAPE HOLDS "
              "%.1f %% (mean error %.1f %%)\n",
              100.0 * v3_holds / kRegressionStudies, v3_error, 100.0 * v2_holds / kRegressionStudies, v2_error);
  // At the fitted noise: median-first 90 % HOLDS (mean error 13.1 %), median
  // of MAPE 40 % (13.9 %). The pairing cancels the common part, so the noise
  // left in a per-round MAPE is small here and inflates it by under a point;
  // enough, 2 points below K, to leave most studies open.
  EXPECT_GE(v3_holds, kRegressionStudies * 8 / 10);
  EXPECT_LE(v2_holds, kRegressionStudies / 2);
  EXPECT_GT(v2_error, v3_error);
}

TEST(StepTimeSimulator, PlannedRoundsDecideHalfTheKillSwitch) {
  // plan_rounds on each study's own 10 calibration rounds (the proxy: SD of
  // ln t_replay(2) − ln t_compute(1) per cell); the study then runs to the
  // checkpoints of its planned N. A true error of K/2 must be decided in
  // ≥ 80 % of studies (the plan's power). The proxy against the TP-2 paired
  // spread: 1.19 in the simulator; on the idle study 1.00 (b = 1) and 0.89
  // (b = 4), so the sealed inflation of 1.5 plans more rounds than needed.
  constexpr int kPlanStudies = 30;
  constexpr int kMaxRounds = 200;
  SimulatorConfig config;
  config.true_error = {0.075, 0.075};
  config.measurement_rounds = kMaxRounds;
  int decided = 0;
  double planned = 0, proxy = 0, paired = 0;
  for (int i = 0; i < kPlanStudies; ++i) {
    const SimulatedStudy study = simulate_study(config, 4000 + static_cast<std::uint64_t>(i));
    RoundPlanInputs in;
    in.cell_log_sd = {study.proxy_log_sd.begin(), study.proxy_log_sd.end()};
    in.judged_cells = 4;
    in.min_rounds = 10;
    in.max_rounds = kMaxRounds;
    const RoundPlan plan = plan_rounds(in);
    RoundsDesign design = make_rounds_design(10, kMaxRounds, 0, 20240, 15.0);
    apply_round_plan(design, plan);
    design.rule.bootstrap.resamples = 2000;
    decided += verdict_of(judge_study(study, design.rule).evaluation, "ideal", 2).outcome != Outcome::inconclusive;
    planned += plan.planned_rounds / static_cast<double>(kPlanStudies);
    for (int c = 0; c < kGridCells; ++c) {
      proxy += study.proxy_log_sd[static_cast<std::size_t>(c)] / (kPlanStudies * kGridCells);
      paired += study.paired_log_sd[static_cast<std::size_t>(c)] / (kPlanStudies * kGridCells);
    }
  }
  std::printf("K/2 with planned rounds (inflation %.2f): decided %.1f %%, mean planned rounds %.1f; simulated "
              "proxy log-SD %.1f %%, TP-2 paired log-SD %.1f %%, ratio %.2f\n",
              kPlanInflation, 100.0 * decided / kPlanStudies, planned, proxy * 100, paired * 100, paired / proxy);
  EXPECT_GE(decided, kPlanStudies * 80 / 100);
}

}  // namespace
}  // namespace tpb::sim
