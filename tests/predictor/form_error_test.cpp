// The median-first error of a form: hand-computed estimates, an estimate
// that noise does not inflate where the per-round MAPE does, and the
// coverage of its interval from resampling whole rounds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "common/error.hpp"
#include "predictor/form_error.hpp"
#include "predictor/random64.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
namespace {

double standard_normal_draw(SplitMix64& rng) {  // Box–Muller
  const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform_unit(rng)));
  return radius * std::cos(2.0 * std::numbers::pi * uniform_unit(rng));
}

// rounds × cells of ln(1 + error_c) + σ_c·z: the truth of cell c is error_c.
LogRatios noisy_log_ratios(int rounds, const std::vector<double>& error, const std::vector<double>& sigma,
                           SplitMix64& rng) {
  LogRatios out(static_cast<std::size_t>(rounds));
  for (auto& round : out)
    for (std::size_t c = 0; c < error.size(); ++c)
      round.push_back(std::log1p(error[c]) + sigma[c] * standard_normal_draw(rng));
  return out;
}

TEST(FormError, IsTheMeanOfTheAbsoluteCellMedians) {
  // Cell 0 measures 10 % slower in every round, cell 1 4 % faster; one wild round changes no median.
  LogRatios rounds(9, {std::log(1.10), std::log(0.96)});
  rounds[4] = {std::log(3.0), std::log(0.2)};
  const FormError e = form_error(rounds);
  ASSERT_EQ(e.cell_error_pct.size(), 2u);
  EXPECT_NEAR(e.cell_error_pct[0], 10.0, 1e-9);
  EXPECT_NEAR(e.cell_error_pct[1], -4.0, 1e-9);
  EXPECT_NEAR(e.error_pct, 7.0, 1e-9);
  EXPECT_NEAR(e.signed_error_pct, 3.0, 1e-9);
  EXPECT_THROW(form_error({}), Error);
  EXPECT_THROW(form_error({{0.1, 0.2}, {0.1}}), Error);
}

TEST(FormErrorInterval, ConstantRoundsGiveAPointAndTooFewRoundsNone) {
  const LogRatios rounds(12, {std::log(1.05)});
  const FormErrorInterval i = form_error_interval(rounds, 0.05, {2000, 1}, 15.0);
  ASSERT_TRUE(i.unsigned_error.formed);
  EXPECT_NEAR(i.unsigned_error.low, 5.0, 1e-9);
  EXPECT_NEAR(i.unsigned_error.high, 5.0, 1e-9);
  EXPECT_DOUBLE_EQ(i.p_exceeds, 0.0);
  // 5 rounds cannot support a 95 % interval of a median (2·½⁵ > 0.05).
  EXPECT_FALSE(form_error_interval(LogRatios(5, {0.0}), 0.05, {2000, 1}, 15.0).unsigned_error.formed);
  EXPECT_EQ(resamples_for(2000, 0.001), 50000);  // 25 resamples in each tail
}

TEST(FormErrorInterval, LevelShiftsWidenTheIntervalByTheLevelsAndLeaveTheEstimate) {
  // Constant rounds 5 % slow: without shifts the interval is the point; with
  // levels of ±10 % drawn per resample, the cell's median moves by them.
  const LogRatios rounds(12, {std::log(1.05)});
  const std::vector<double> levels{std::log(1.10), 0.0, -std::log(1.10)};
  const FormErrorInterval shifted = form_error_interval(rounds, 0.05, {2000, 1}, 15.0, levels);
  ASSERT_TRUE(shifted.unsigned_error.formed);
  EXPECT_NEAR(shifted.unsigned_error.estimate, 5.0, 1e-9);  // the estimate takes no shift
  EXPECT_NEAR(shifted.signed_low, (1.05 / 1.10 - 1.0) * 100.0, 1e-9);
  EXPECT_NEAR(shifted.signed_high, (1.05 * 1.10 - 1.0) * 100.0, 1e-9);
  EXPECT_NEAR(shifted.unsigned_error.low, (1.0 - 1.05 / 1.10) * 100.0, 1e-9);
  EXPECT_NEAR(shifted.unsigned_error.high, (1.05 * 1.10 - 1.0) * 100.0, 1e-9);
  EXPECT_THROW(form_error_interval(rounds, 0.05, {2000, 1}, 15.0, {std::nan("")}), Error);
}

// The statistic this rule replaces: the median over rounds of the per-round MAPE.
double median_of_round_mape(const LogRatios& rounds) {
  std::vector<double> per_round;
  for (const auto& round : rounds) {
    double sum = 0;
    for (double d : round) sum += std::abs(std::expm1(-d)) * 100.0;  // |predicted − measured| / measured
    per_round.push_back(sum / static_cast<double>(round.size()));
  }
  return median(per_round);
}

TEST(FormError, NoiseWidensTheIntervalButDoesNotInflateTheEstimate) {
  // A perfect form under this machine's quick-start noise (log-SD 17 % and 6 %, 60 rounds).
  SplitMix64 rng(5);
  double median_first = 0, round_mape = 0;
  for (int study = 0; study < 50; ++study) {
    const LogRatios rounds = noisy_log_ratios(60, {0.0, 0.0}, {0.17, 0.06}, rng);
    median_first += form_error(rounds).error_pct / 50.0;
    round_mape += median_of_round_mape(rounds) / 50.0;
  }
  EXPECT_LT(median_first, 2.5);  // ≈ 0.8·1.25·σ/√60 averaged over cells
  EXPECT_GT(round_mape, 7.0);    // ≈ 0.7·σ of the round: the noise itself
}

// Share of 2000 studies whose interval at `alpha` holds the truth (one-sided
// for the upper bound at zero error, two-sided at the kill switch).
struct Coverage {
  double upper = 0;  // U ≥ truth
  double both = 0;   // L ≤ truth ≤ U
};
Coverage coverage(double error, int rounds, double alpha, int resamples) {
  SplitMix64 rng(11);
  Coverage c;
  const int studies = 2000;
  for (int study = 0; study < studies; ++study) {
    const LogRatios r = noisy_log_ratios(rounds, {error, error}, {0.14, 0.07}, rng);
    const RoundInterval i = form_error_interval(r, alpha, {resamples, static_cast<std::uint64_t>(study)},
                                                15.0).unsigned_error;
    c.upper += (i.high >= error * 100.0) / static_cast<double>(studies);
    c.both += (i.low <= error * 100.0 && error * 100.0 <= i.high) / static_cast<double>(studies);
  }
  return c;
}

TEST(FormErrorInterval, CoversZeroFromAboveAndTheKillSwitchFromBothSides) {
  const Coverage at_zero = coverage(0.0, 30, 0.05, 2000);
  const Coverage at_kill = coverage(0.15, 30, 0.05, 2000);
  std::printf("coverage at 95 %%, 30 rounds: U above 0 in %.2f %%, [L, U] holds 15 %% in %.2f %%\n",
              at_zero.upper * 100, at_kill.both * 100);
  EXPECT_GE(at_zero.upper, 0.94);
  EXPECT_GE(at_kill.both, 0.94);
}

TEST(FormErrorInterval, CoversAtTheAlphaTheQuickStartUses) {
  // The last look of a study of 4 judged cells: about 0.05 · 0.89 / 4.
  const double alpha = 0.011;
  // 5000 resamples keep 27 in each tail at this α (resamples_for).
  const Coverage at_zero = coverage(0.0, 60, alpha, 5000);
  const Coverage at_kill = coverage(0.15, 60, alpha, 5000);
  std::printf("coverage at alpha %.3f, 60 rounds: U above 0 in %.2f %%, [L, U] holds 15 %% in %.2f %%\n", alpha,
              at_zero.upper * 100, at_kill.both * 100);
  EXPECT_GE(at_zero.upper, 1.0 - alpha - 0.01);
  EXPECT_GE(at_kill.both, 1.0 - alpha - 0.01);
}

}  // namespace
}  // namespace tpb
