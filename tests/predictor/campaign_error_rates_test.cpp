// The campaign's pooled verdict at the boundary K (campaign_simulator.hpp):
// at a true mean error over launches of exactly ±K, the form at k = 2 HOLDS
// in at most α of the campaigns and is FALSIFIED at each k in at most α/m,
// for normal launch effects and the two-level (1.44×) one, at L = 3, 5 and 10.
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
const LaunchCase kTwoLevel{"twolevel144", {LaunchEffect::Kind::two_level, 0, std::log(1.44)}};

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

// A two-level launch effect (each launch at one of two levels 1.44× apart,
// with even odds) at L = 3 and 5: every launch lands on the upper level with
// probability 2^−L (12.5 % and 3.1 %), and then no interval over launches can
// tell the upper level from the mean. The pooled verdict is FALSIFIED at a
// true mean of exactly +K in 13.35 % (L = 3) and 2.90 % (L = 5) of 2000
// campaigns, against α/m = 1.25 %, and HOLDS at (−K, −K) in about 12 % (L =
// 3) against α = 5 %: no rule over so few launches keeps those bounds, since
// 2^−L ≤ α/m needs L ≥ 7. Disabled: run
// with --gtest_also_run_disabled_tests to see the rates.
TEST(TwoLevelLaunchEffectAtFewLaunches, DISABLED_KeepsTheBounds) {
  check_boundary(kTwoLevel, 3);
  check_boundary(kTwoLevel, 5);
}

}  // namespace
}  // namespace tpb::sim::campaign_rates
