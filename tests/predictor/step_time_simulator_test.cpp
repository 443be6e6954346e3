// The decision code on 500 simulated studies per true error: noisy (10 %),
// spiky (5 % of iterations × 1.5–3), a +30 % stretch over a third of the run
// and a 0–10 % linear drift shared by every condition; kill switch 15 %.
// The same seeds judged by the old one-pass point rule are the regression case.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "step_time_simulator.hpp"

namespace tpb::sim {
namespace {

constexpr int kSeeds = 500;

struct Rates {
  double holds = 0, falsified = 0, inconclusive = 0;
  double point_holds = 0, point_falsified = 0;
  double mean_rounds = 0;
};

Rates simulate_all_seeds(double true_error) {
  SimulatorConfig config;
  config.true_error = true_error;
  config.rule.bootstrap.resamples = 200;  // p_exceeds is reported, never decides
  Rates rates;
  for (int seed = 0; seed < kSeeds; ++seed) {
    const StudyOutcome outcome = simulate_study(config, 1000 + static_cast<std::uint64_t>(seed));
    rates.holds += outcome.verdict == Outcome::holds;
    rates.falsified += outcome.verdict == Outcome::falsified;
    rates.inconclusive += outcome.verdict == Outcome::inconclusive;
    rates.point_holds += outcome.point_rule == Outcome::holds;
    rates.point_falsified += outcome.point_rule == Outcome::falsified;
    rates.mean_rounds += outcome.rounds;
  }
  for (double* rate : {&rates.holds, &rates.falsified, &rates.inconclusive, &rates.point_holds,
                       &rates.point_falsified, &rates.mean_rounds})
    *rate /= kSeeds;
  std::printf(
      "true error %.0f %%: HOLDS %.1f %%, FALSIFIED %.1f %%, INCONCLUSIVE %.1f %%, mean rounds %.1f; "
      "point rule HOLDS %.1f %%, FALSIFIED %.1f %%\n",
      true_error * 100, rates.holds * 100, rates.falsified * 100, rates.inconclusive * 100, rates.mean_rounds,
      rates.point_holds * 100, rates.point_falsified * 100);
  return rates;
}

// Each true error is simulated once per process: run in one process, the
// regression case reuses the 500 studies of the 5 % and 30 % cases.
const Rates& simulate(double true_error) {
  static std::map<double, Rates> done;
  auto found = done.find(true_error);
  if (found == done.end()) found = done.emplace(true_error, simulate_all_seeds(true_error)).first;
  return found->second;
}

TEST(StepTimeSimulator, FivePercentErrorHolds) {
  const Rates& rates = simulate(0.05);
  EXPECT_GE(rates.holds, 0.95);
  EXPECT_LE(rates.falsified, 0.01);
}

TEST(StepTimeSimulator, ThirtyPercentErrorIsFalsified) {
  const Rates& rates = simulate(0.30);
  EXPECT_GE(rates.falsified, 0.95);
  EXPECT_LE(rates.holds, 0.01);
}

TEST(StepTimeSimulator, ErrorAtTheThresholdIsRarelyDecided) {
  const Rates& rates = simulate(0.15);
  EXPECT_LE(rates.holds, 0.05);
  EXPECT_LE(rates.falsified, 0.05);
}

TEST(StepTimeSimulator, DecisionsGrowWithTheDistanceFromTheThreshold) {
  // Between the cases above: a third of the way from the threshold to each
  // of them, the rule decides less often than there, more often than at it.
  const Rates& at = simulate(0.15);
  const Rates& below = simulate(0.10);
  const Rates& above = simulate(0.20);
  EXPECT_GT(below.holds, at.holds);
  EXPECT_LT(below.holds, simulate(0.05).holds);
  EXPECT_GT(above.falsified, at.falsified);
  EXPECT_LT(above.falsified, simulate(0.30).falsified);
}

TEST(StepTimeSimulator, OldPointRuleFlipsFarMoreOften) {
  // A wrong verdict: FALSIFIED at a true 5 %, HOLDS at a true 30 %. The old
  // rule must be wrong in at least 5 % of studies and at least five times
  // as often as the interval rule, on the same simulated data.
  const Rates& low = simulate(0.05);
  const Rates& high = simulate(0.30);
  const double point_wrong = (low.point_falsified + high.point_holds) / 2;
  const double interval_wrong = (low.falsified + high.holds) / 2;
  std::printf("wrong verdicts: point rule %.1f %%, interval rule %.1f %%\n", point_wrong * 100,
              interval_wrong * 100);
  EXPECT_GE(point_wrong, 0.05);
  EXPECT_GE(point_wrong, 5 * interval_wrong);
}

}  // namespace
}  // namespace tpb::sim
