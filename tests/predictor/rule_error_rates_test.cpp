// Rule version 6's error rates at the boundary K, on the cell-level
// generator (log_ratio_generator.hpp): each launch's own median of d is set
// exactly, so the rates are measured where the rule promises them. The
// quick start's design: N = 80 rounds (16 blocks of 5), α = 0.05, K = 15 %,
// one form's family of m = 4 cells (k {1, 2} × batch {1, 4}).
//
// Monte-Carlo allowance: every rate is a binomial proportion over `studies`
// launches with a fixed seed, so each test is deterministic; a rate may
// exceed its bound by at most 3 standard errors of a rate sitting exactly at
// the bound (kSigmas · √(p(1 − p)/n)): 1.46 points over α = 5 % and 0.74
// over α/m = 1.25 % at n = 2000. A rule whose true rate is at the bound
// passes with probability 99.87 % over seeds; one at twice the bound fails
// with probability above 99.99 % for α and about 93 % for α/m.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "log_ratio_generator.hpp"
#include "sim_random.hpp"

namespace tpb::sim::cell_rates {
namespace {

constexpr int kStudies = 2000;
constexpr double kSigmas = 3.0;
constexpr int kRounds = 80;

double allowance(double bound, int studies) { return kSigmas * monte_carlo_se(bound, studies); }

const double kDelta = DecisionRule{}.margin_log();
const double kAlpha = DecisionRule{}.family_alpha;

// The paired ratio's noise per batch (b = 1, b = 4): spreads of 14 % and 7 %
// per round (issue 42's reading of the quick start).
struct NoiseCase {
  const char* name;
  std::array<CellNoise, kFamilyBatches> noise;
  LaunchEffect launch;
  bool at_launch_level = false;      // an absolute form (FamilyCase::at_launch_level)
  bool truth_at_true_level = false;  // FamilyCase::truth_at_true_level
};

const NoiseCase kIid{"iid", {CellNoise{.log_sd = 0.14}, CellNoise{.log_sd = 0.07}}, {}};
// AR(1) ρ = 0.25 (the largest the rule was sized for), right skew, and a
// two-level launch effect 1.44× apart (folded into each launch's own median).
const NoiseCase kAr1SkewTwoLevels{"ar1_skew_two_levels",
                                  {CellNoise{.log_sd = 0.14, .lag1 = 0.25, .skew = 0.5},
                                   CellNoise{.log_sd = 0.07, .lag1 = 0.25, .skew = 0.5}},
                                  {LaunchEffect::Kind::two_level, 0.0, std::log(1.44)}};
// An absolute prediction (fixed for the launch: an outside form, `roofline`),
// judged at its launch's level (judge_absolute_cell): the paired noise, the
// machine's level at the fitted 14.4 % read by an anchor with its own 5 %
// noise, and a N(0, 5 %) level per launch. The level moves over rounds at
// ρ = 0.25, then at the fitted ρ = 0.83 (fitted_noise().common), where
// judging d itself broke the bounds (bench/archive/2026-12-05-absolute-forms).
NoiseCase absolute_case(const char* name, double level_lag1, bool truth_at_true_level = false) {
  const CellNoise b1{.log_sd = 0.14, .lag1 = 0.25, .skew = 0.5, .level_log_sd = 0.1441, .level_lag1 = level_lag1,
                     .anchor_log_sd = 0.05};
  CellNoise b4 = b1;
  b4.log_sd = 0.07;
  return {name, {b1, b4}, {LaunchEffect::Kind::normal, 0.05, 0.0}, true, truth_at_true_level};
}
const NoiseCase kAbsoluteFastLevel = absolute_case("absolute_fast_level", 0.25);
const NoiseCase kAbsoluteFittedLevel = absolute_case("absolute_fitted_level", 0.83);
// The same judged against the true level, which the anchor reads with its
// own noise: the interval does not carry σ_a/√N (0.56 % here). At σ_a = 5 %
// HOLDS at (0, −K) ran at 5.05–5.70 % and FALSIFIED at 1.25 %; at 10 %, 9.8 %
// and 2.8 % (bench/archive/2026-12-05-absolute-forms). A stated limit of the
// rule, not a bound it keeps.
const NoiseCase kAbsoluteFittedTrueLevel = absolute_case("absolute_fitted_true_level", 0.83, true);

FamilyCase family(const NoiseCase& n, std::array<double, kFamilyCells> truth_log) {
  return {.truth_log = truth_log, .noise = n.noise, .launch = n.launch, .at_launch_level = n.at_launch_level,
          .truth_at_true_level = n.truth_at_true_level, .rounds = kRounds, .rule = {}};
}

std::uint64_t seed_of(const std::string& name) {  // a fixed seed per test, from its name (FNV-1a)
  std::uint64_t h = 1469598103934665603ULL;
  for (char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
  return h;
}

// Generated test names: noise_cells, e.g. iid_plusK_0.
struct CaseName {
  template <typename Param>
  std::string operator()(const testing::TestParamInfo<Param>& case_info) const {
    return std::string(std::get<0>(case_info.param).name) + "_" + std::get<1>(case_info.param).name;
  }
};

// ---------------------------------------------------------------- HOLDS ≤ α
// The form at k = 2 with one cell on the boundary (or both): it must HOLD in
// at most α of the launches. k = 1's cells sit at 0 and play no part.
struct HoldCase {
  const char* name;
  double b1, b4;  // in units of δ
};
const HoldCase kHoldCases[] = {{"plusK_0", 1, 0}, {"0_minusK", 0, -1}, {"plusK_plusK", 1, 1}, {"minusK_minusK", -1, -1}};

void check_holds_at_most_alpha(const NoiseCase& noise, const HoldCase& cells) {
  const FamilyCase c = family(noise, {0.0, 0.0, cells.b1 * kDelta, cells.b4 * kDelta});
  const FamilyRates r = run_family(c, kStudies, seed_of(std::string(noise.name) + cells.name));
  const double holds = r.rate(r.holds[1]);
  std::printf("%s %s: P(HOLDS at k=2) %.2f %% of %d (bound %.0f %% + %.2f)\n", noise.name, cells.name, holds * 100,
              kStudies, kAlpha * 100, allowance(kAlpha, kStudies) * 100);
  EXPECT_LE(holds, kAlpha + allowance(kAlpha, kStudies));
}

class HoldsAtTheBoundary : public testing::TestWithParam<std::tuple<NoiseCase, HoldCase>> {};

TEST_P(HoldsAtTheBoundary, InAtMostAlphaOfTheLaunches) {
  check_holds_at_most_alpha(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(PairedForms, HoldsAtTheBoundary,
                         testing::Combine(testing::Values(kIid, kAr1SkewTwoLevels), testing::ValuesIn(kHoldCases)),
                         CaseName{});
INSTANTIATE_TEST_SUITE_P(AbsoluteForms, HoldsAtTheBoundary,
                         testing::Combine(testing::Values(kAbsoluteFastLevel, kAbsoluteFittedLevel),
                                          testing::ValuesIn(kHoldCases)),
                         CaseName{});

// ------------------------------------------------------- FALSIFIED ≤ α/m
// Every cell of the family at exactly ±K: the form at each k is FALSIFIED in
// at most α/m of the launches, and the family (at some k) in at most α.
struct FalsifyCase {
  const char* name;
  std::array<double, kFamilyCells> signs;  // k-major: (k=1: b=1, b=4; k=2: b=1, b=4)
};
const FalsifyCase kFalsifyCases[] = {
    {"allPlusK", {1, 1, 1, 1}}, {"allMinusK", {-1, -1, -1, -1}}, {"mixed", {1, -1, -1, 1}}};

void check_falsified_at_most_alpha_over_m(const NoiseCase& noise, const FalsifyCase& cells) {
  std::array<double, kFamilyCells> truth{};
  for (std::size_t i = 0; i < truth.size(); ++i) truth[i] = cells.signs[i] * kDelta;
  const FamilyRates r = run_family(family(noise, truth), kStudies, seed_of(std::string(noise.name) + cells.name));
  const double per_k_bound = kAlpha / kFamilyCells;
  for (std::size_t k = 0; k < kFamilyDegrees; ++k) {
    std::printf("%s %s: P(FALSIFIED at k=%zu) %.2f %% of %d (bound %.2f %% + %.2f)\n", noise.name, cells.name, k + 1,
                r.rate(r.falsified[k]) * 100, kStudies, per_k_bound * 100, allowance(per_k_bound, kStudies) * 100);
    EXPECT_LE(r.rate(r.falsified[k]), per_k_bound + allowance(per_k_bound, kStudies)) << "k = " << k + 1;
  }
  EXPECT_LE(r.rate(r.falsified_any_k), kAlpha + allowance(kAlpha, kStudies));
}

class FalsifiedAtTheBoundary : public testing::TestWithParam<std::tuple<NoiseCase, FalsifyCase>> {};

TEST_P(FalsifiedAtTheBoundary, InAtMostAlphaOverMOfTheLaunches) {
  check_falsified_at_most_alpha_over_m(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(PairedForms, FalsifiedAtTheBoundary,
                         testing::Combine(testing::Values(kIid, kAr1SkewTwoLevels),
                                          testing::ValuesIn(kFalsifyCases)),
                         CaseName{});
INSTANTIATE_TEST_SUITE_P(AbsoluteForms, FalsifiedAtTheBoundary,
                         testing::Combine(testing::Values(kAbsoluteFastLevel, kAbsoluteFittedLevel),
                                          testing::ValuesIn(kFalsifyCases)),
                         CaseName{});

// The anchor's own noise, against the true level: run with
// --gtest_also_run_disabled_tests to see the rates.
TEST(AbsoluteFormsAgainstTheTrueLevel, DISABLED_KeepTheRulesBounds) {
  for (const HoldCase& cells : kHoldCases) check_holds_at_most_alpha(kAbsoluteFittedTrueLevel, cells);
  for (const FalsifyCase& cells : kFalsifyCases) check_falsified_at_most_alpha_over_m(kAbsoluteFittedTrueLevel, cells);
}

// ------------------------------------------------------------- coverage
// Each interval covers its launch's own median within 1 point of its exact
// nominal coverage (RoundInterval::coverage, 92.32 % and 99.58 % at 16
// blocks) for AR(1) ρ ≤ 0.25. 20,000 launches per ρ: the SE of a coverage
// near 92 % is 0.19 points, so the allowance is 1 point + 3 SE.
constexpr int kCoverageStudies = 20000;

class CoverageUnderAr1 : public testing::TestWithParam<double> {};

TEST_P(CoverageUnderAr1, WithinOnePointOfTheExactNominal) {
  const double rho = GetParam();
  const CellNoise noise{.log_sd = 0.14, .lag1 = rho, .skew = 0.5};
  const Coverage c = run_coverage(noise, kRounds, DecisionRule{}, kFamilyCells, kCoverageStudies,
                                  seed_of("coverage") + static_cast<std::uint64_t>(rho * 100));
  std::printf("AR(1) rho %.2f: 1-2a interval covers %.2f %% (exact %.2f %%), 1-a/m %.2f %% (exact %.2f %%)\n", rho,
              c.hold() * 100, c.hold_nominal * 100, c.falsify() * 100, c.falsify_nominal * 100);
  EXPECT_NEAR(c.hold(), c.hold_nominal, 0.01 + kSigmas * monte_carlo_se(c.hold_nominal, kCoverageStudies));
  EXPECT_NEAR(c.falsify(), c.falsify_nominal, 0.01 + kSigmas * monte_carlo_se(c.falsify_nominal, kCoverageStudies));
}

INSTANTIATE_TEST_SUITE_P(Rho, CoverageUnderAr1, testing::Values(0.0, 0.1, 0.25), [](const auto& rho) {
  return "rho" + std::to_string(static_cast<int>(rho.param * 100));
});

// ------------------------------------------------------- the generator
// The noise's median is 0 by construction: skew keeps z's median, and with
// a level the computed median is subtracted. 100,000 i.i.d. draws: the share
// at or below 0 is ½ within 3 SE (0.47 points).
TEST(LogRatioGenerator, NoiseHasMedianZero) {
  constexpr int kDraws = 100000;
  for (const CellNoise& noise : {CellNoise{.log_sd = 0.14, .skew = 0.5},
                                 CellNoise{.log_sd = 0.14, .skew = 0.5, .level_log_sd = 0.1441},
                                 CellNoise{.log_sd = 0.07, .skew = -0.8, .level_log_sd = 0.2}}) {
    SplitMix64 rng(7);
    const std::vector<double> d = draw_noise(noise, noise_median(noise), kDraws, rng);
    int below = 0;
    for (double v : d) below += v <= 0.0;
    EXPECT_NEAR(static_cast<double>(below) / kDraws, 0.5, kSigmas * monte_carlo_se(0.5, kDraws))
        << "skew " << noise.skew << ", level " << noise.level_log_sd;
  }
  EXPECT_EQ(noise_median(CellNoise{.log_sd = 0.14, .skew = 2.0}), 0.0);  // g_λ(0) = 0
  EXPECT_GT(noise_median(CellNoise{.log_sd = 0.14, .skew = 0.5, .level_log_sd = 0.1441}), 0.0);  // right skew
}

TEST(LogRatioGenerator, Ar1HasItsLagOneAutocorrelation) {
  // 100,000 rounds of a unit AR(1) at ρ = 0.25: the sample lag-1
  // autocorrelation has SE about 1/√n = 0.003.
  SplitMix64 rng(11);
  const std::vector<double> d = draw_noise(CellNoise{.log_sd = 1.0, .lag1 = 0.25}, 0.0, 100000, rng);
  double mean = 0, lag = 0, var = 0;
  for (double v : d) mean += v / static_cast<double>(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    var += (d[i] - mean) * (d[i] - mean);
    if (i > 0) lag += (d[i] - mean) * (d[i - 1] - mean);
  }
  EXPECT_NEAR(lag / var, 0.25, 0.01);
  EXPECT_NEAR(var / static_cast<double>(d.size()), 1.0, 0.02);
}

TEST(LogRatioGenerator, LaunchEffects) {
  SplitMix64 rng(3);
  const LaunchEffect two{LaunchEffect::Kind::two_level, 0.0, std::log(1.44)};
  for (int i = 0; i < 20; ++i) EXPECT_NEAR(std::abs(draw_launch_shift(two, rng)), std::log(1.44) / 2, 1e-15);
  EXPECT_EQ(draw_launch_shift(LaunchEffect{}, rng), 0.0);
}

}  // namespace
}  // namespace tpb::sim::cell_rates
