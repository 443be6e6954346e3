// The campaign's pooled verdict at the boundary K (campaign_simulator.hpp):
// at a true mean error over launches of exactly ±K, the form at k = 2 HOLDS
// in at most α of the campaigns and is FALSIFIED at each k in at most α/m,
// for normal launch effects and a two-level (1.44×) shift of d, at L = 3, 5
// and 10, and for the two levels on every rank's times (the study-level
// simulator) at L = 3.
// 2000 campaigns per case with a fixed seed; the Monte-Carlo allowance is 3
// SE of a rate at its bound, as in rule_error_rates_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "campaign_simulator.hpp"

namespace tpb::sim::campaign_rates {
namespace {

constexpr int kCampaigns = 2000;
const double kCampaignDelta = DecisionRule{}.margin_log();
const double kCampaignAlpha = DecisionRule{}.family_alpha;

double bound(double rate) { return rate + 3.0 * monte_carlo_se(rate, kCampaigns); }

struct LaunchCase {
  const char* name;
  LaunchEffect launch;
};
const LaunchCase kNormal5{"normal5", {LaunchEffect::Kind::normal, 0.05, 0}};
const LaunchCase kTwoLevel{"twolevel144_of_d", {LaunchEffect::Kind::two_level, 0, std::log(1.44)}};

CampaignCase campaign(const LaunchCase& launch, int launches, std::array<double, kFamilyCells> truth_log) {
  CampaignCase c;
  c.family.truth_log = truth_log;
  c.family.noise = {CellNoise{.log_sd = 0.14}, CellNoise{.log_sd = 0.07}};
  c.family.launch = launch.launch;
  c.family.rounds = 80;
  c.launches = launches;
  return c;
}

std::uint64_t seed_of(const std::string& name) {  // FNV-1a of the case's name
  std::uint64_t h = 1469598103934665603ULL;
  for (char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
  return h;
}

void check_boundary(const LaunchCase& launch, int launches) {
  const std::string name = std::string(launch.name) + "_L" + std::to_string(launches);
  const double d = kCampaignDelta;
  const CampaignRates hold = run_campaigns(campaign(launch, launches, {0, 0, d, 0}), kCampaigns, seed_of(name + "h"));
  std::printf("%s: P(HOLDS at k=2 | +K, 0) %.2f %%\n", name.c_str(), hold.rate(hold.holds[1]) * 100);
  EXPECT_LE(hold.rate(hold.holds[1]), bound(kCampaignAlpha));
  const CampaignRates below =
      run_campaigns(campaign(launch, launches, {0, 0, -d, -d}), kCampaigns, seed_of(name + "hm"));
  std::printf("%s: P(HOLDS at k=2 | -K, -K) %.2f %%\n", name.c_str(), below.rate(below.holds[1]) * 100);
  EXPECT_LE(below.rate(below.holds[1]), bound(kCampaignAlpha));
  for (const double sign : {1.0, -1.0}) {
    const CampaignRates r =
        run_campaigns(campaign(launch, launches, {sign * d, sign * d, sign * d, sign * d}), kCampaigns,
                      seed_of(name + (sign > 0 ? "+" : "-")));
    for (std::size_t k = 0; k < kFamilyDegrees; ++k) {
      std::printf("%s: P(FALSIFIED at k=%zu | all %cK) %.2f %%\n", name.c_str(), k + 1, sign > 0 ? '+' : '-',
                  r.rate(r.falsified[k]) * 100);
      EXPECT_LE(r.rate(r.falsified[k]), bound(kCampaignAlpha / kFamilyCells)) << "k = " << k + 1;
    }
  }
}

struct CaseName {  // normal5_L3
  std::string operator()(const testing::TestParamInfo<std::tuple<LaunchCase, int>>& c) const {
    return std::string(std::get<0>(c.param).name) + "_L" + std::to_string(std::get<1>(c.param));
  }
};

class CampaignAtTheBoundary : public testing::TestWithParam<std::tuple<LaunchCase, int>> {};

TEST_P(CampaignAtTheBoundary, DefiniteVerdictsAtMostNominal) {
  check_boundary(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(NormalLaunchEffect, CampaignAtTheBoundary,
                         testing::Combine(testing::Values(kNormal5), testing::Values(3, 5, 10)),
                         CaseName{});
INSTANTIATE_TEST_SUITE_P(TwoLevelLaunchEffect, CampaignAtTheBoundary,
                         testing::Combine(testing::Values(kTwoLevel), testing::Values(10)),
                         CaseName{});

// The two levels where this machine shows them, on every rank's times
// (study-level simulator: two_level_noise, a launch starting on either level
// and moving between them, rank 1 12 % slower in half the launches): the
// same-round pairing cancels them, so even L = 3 keeps the bounds. The TP-2
// true errors are placed so that the campaign's estimand sits exactly at ±δ.
TEST(TwoLevelsOnEveryRank, DefiniteVerdictsAtMostNominalAtThreeLaunches) {
  constexpr int kLaunches = 3, kStudyCampaigns = 600, kPilot = 1500;
  const auto study_bound = [](double rate) { return rate + 3.0 * monte_carlo_se(rate, kStudyCampaigns); };
  SimulatorConfig config;
  config.noise = two_level_noise();
  config.slow_rank = {.rank = 1, .slowdown = 0.12, .fraction = 0.85, .sojourn_visits = 20, .launch_probability = 0.5};
  const double d = kCampaignDelta;
  const CampaignRates hold = run_study_campaigns(with_estimand_at(config, {d, 0}, kPilot, seed_of("study h pilot")),
                                                 kLaunches, kStudyCampaigns, seed_of("study h"));
  std::printf("study-level two levels L3: P(HOLDS at k=2 | +K, 0) %.2f %%\n", hold.rate(hold.holds[1]) * 100);
  EXPECT_LE(hold.rate(hold.holds[1]), study_bound(kCampaignAlpha));
  for (const double sign : {1.0, -1.0}) {
    const std::string name = sign > 0 ? "study +" : "study -";
    const CampaignRates r =
        run_study_campaigns(with_estimand_at(config, {sign * d, sign * d}, kPilot, seed_of(name + " pilot")),
                            kLaunches, kStudyCampaigns, seed_of(name));
    std::printf("study-level two levels L3: P(FALSIFIED at k=2 | all %cK) %.2f %%, P(HOLDS) %.2f %%\n",
                sign > 0 ? '+' : '-', r.rate(r.falsified[1]) * 100, r.rate(r.holds[1]) * 100);
    EXPECT_LE(r.rate(r.falsified[1]), study_bound(kCampaignAlpha / kFamilyCells));
    EXPECT_LE(r.rate(r.holds[1]), study_bound(kCampaignAlpha));
  }
}

// A two-level launch effect on d itself (each launch's d shifted by ±ln 1.44 / 2
// with even odds; no pairing cancels it) at L = 3 and 5: every launch lands
// on the upper level with probability 2^−L (12.5 % and 3.1 %), and then no
// interval over launches can tell the upper level from the mean. The pooled
// verdict is FALSIFIED at a true mean of exactly +K in 13.35 % (L = 3) and
// 2.90 % (L = 5) of 2000 campaigns, against α/m = 1.25 %, and HOLDS at (−K,
// −K) in about 12 % (L = 3) against α = 5 %: no rule over so few launches
// keeps those bounds, since 2^−L ≤ α/m needs L ≥ 7 (the campaign report says
// so). Disabled: run with --gtest_also_run_disabled_tests to see the rates.
TEST(TwoLevelShiftOfDAtFewLaunches, DISABLED_KeepsTheBounds) {
  check_boundary(kTwoLevel, 3);
  check_boundary(kTwoLevel, 5);
}

}  // namespace
}  // namespace tpb::sim::campaign_rates
