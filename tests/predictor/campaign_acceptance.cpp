// The acceptance of the campaign's pooled verdict (issue 44) on the
// cell-level generator: each definite verdict's rate at a true mean error of
// exactly ±K, for normal launch effects and the two-level (1.44×) one, at
// L = 3, 5 and 10; the same on the study-level simulator, where the two
// levels act on every rank's times as on this machine; and the power table (L against the between-launch SD) at a
// true error of 0. Prints one Markdown document; no bootstrap anywhere.
//
//   build-camp/tests/predictor/campaign_acceptance [campaigns per case, default 2000]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "campaign_simulator.hpp"

namespace {

using tpb::sim::CampaignCase;
using tpb::sim::CampaignRates;
using tpb::sim::CellNoise;
using tpb::sim::LaunchEffect;
using tpb::sim::monte_carlo_se;

constexpr int kRounds = 80;  // the quick start's N per launch

struct LaunchCase {
  std::string name;
  LaunchEffect launch;
};

CampaignCase campaign(const LaunchCase& launch, int launches, std::array<double, 4> truth_log) {
  CampaignCase c;
  c.family.truth_log = truth_log;
  // The quick start's paired noise per round: 14 % at b = 1, 7 % at b = 4.
  c.family.noise = {CellNoise{.log_sd = 0.14}, CellNoise{.log_sd = 0.07}};
  c.family.launch = launch.launch;
  c.family.rounds = kRounds;
  c.launches = launches;
  return c;
}


// The two levels where this machine shows them: on every rank's times
// (step_time_simulator's two_level_noise, a launch starting on either level
// and moving between them), with and without rank 1 slow in half the
// launches; judged through the same-round pairing, pooled over launches.
void print_study_level_boundary(int campaigns, std::uint64_t& seed) {
  using tpb::sim::SimulatorConfig;
  const tpb::DecisionRule rule;
  const double delta = rule.margin_log(), alpha = rule.family_alpha;
  const int m = tpb::sim::kFamilyCells;
  constexpr int kPilot = 4000;
  SimulatorConfig levels;
  levels.noise = tpb::sim::two_level_noise();
  SimulatorConfig slow = levels;
  slow.slow_rank = {.rank = 1, .slowdown = 0.12, .fraction = 0.85, .sojourn_visits = 20, .launch_probability = 0.5};
  const std::vector<std::pair<std::string, SimulatorConfig>> cases = {
      {"two levels 1.44× on every rank", levels},
      {"as above, rank 1 12 % slower in half the launches", slow}};
  std::printf("\n## The two levels on every rank's times (study-level simulator)\n\n");
  std::printf("Each launch: simulate_study (the quick start's visits, the fitted noise with the two levels 1.44× "
              "apart, %d rounds) judged by evaluate_rounds; the campaign pools `ideal`'s cells. The TP-2 true errors "
              "are placed so that the mean over %d pilot launches of each launch's k = 2 median of d is exactly "
              "the target. Same bounds as above.\n\n",
              kRounds, kPilot);
  std::printf("| launch effect | L | HOLDS k=2 at (+K, 0) | HOLDS k=2 at (−K, −K) | FALSIFIED k=2 all +K | "
              "FALSIFIED k=2 all −K | between-launch SD k=2 b=1 / b=4 | within bounds |\n"
              "|---|---|---|---|---|---|---|---|\n");
  const double hold_bound = alpha + 3 * monte_carlo_se(alpha, campaigns);
  const double fals_bound = alpha / m + 3 * monte_carlo_se(alpha / m, campaigns);
  for (const auto& [name, config] : cases) {
    const SimulatorConfig hold_plus = tpb::sim::with_estimand_at(config, {delta, 0}, kPilot, ++seed);
    const SimulatorConfig hold_minus = tpb::sim::with_estimand_at(config, {-delta, -delta}, kPilot, ++seed);
    const SimulatorConfig plus = tpb::sim::with_estimand_at(config, {delta, delta}, kPilot, ++seed);
    const SimulatorConfig minus = tpb::sim::with_estimand_at(config, {-delta, -delta}, kPilot, ++seed);
    for (int size : {3, 5, 10}) {
      const CampaignRates hp = tpb::sim::run_study_campaigns(hold_plus, size, campaigns, ++seed);
      const CampaignRates hm = tpb::sim::run_study_campaigns(hold_minus, size, campaigns, ++seed);
      const CampaignRates fp = tpb::sim::run_study_campaigns(plus, size, campaigns, ++seed);
      const CampaignRates fm = tpb::sim::run_study_campaigns(minus, size, campaigns, ++seed);
      const bool ok = hp.rate(hp.holds[1]) <= hold_bound && hm.rate(hm.holds[1]) <= hold_bound &&
                      fp.rate(fp.falsified[1]) <= fals_bound && fm.rate(fm.falsified[1]) <= fals_bound;
      std::printf("| %s | %d | %.2f %% | %.2f %% | %.2f %% | %.2f %% | %.1f / %.1f %% | %s |\n", name.c_str(), size,
                  hp.rate(hp.holds[1]) * 100, hm.rate(hm.holds[1]) * 100, fp.rate(fp.falsified[1]) * 100,
                  fm.rate(fm.falsified[1]) * 100, fp.between_sd_log[2] * 100, fp.between_sd_log[3] * 100,
                  ok ? "yes" : "NO");
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int campaigns = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (campaigns < 1) {
    std::fprintf(stderr, "usage: campaign_acceptance [campaigns per case >= 1]\n");
    return 2;
  }
  const tpb::DecisionRule rule;
  const double delta = rule.margin_log(), alpha = rule.family_alpha;
  const int m = tpb::sim::kFamilyCells;
  const std::vector<LaunchCase> launches = {
      {"normal, SD 5 %", {LaunchEffect::Kind::normal, 0.05, 0}},
      {"normal, SD 10 %", {LaunchEffect::Kind::normal, 0.10, 0}},
      {"two-level 1.44× shift of d", {LaunchEffect::Kind::two_level, 0, std::log(1.44)}},
  };
  const std::vector<int> sizes = {3, 5, 10};
  std::uint64_t seed = 44;

  std::printf("# Campaign acceptance (issue 44), %d campaigns per case\n\n", campaigns);
  std::printf("Each launch: the quick start's family (k {1, 2} × b {1, 4}, m = %d), N = %d rounds, paired noise "
              "14 %% / 7 %% per round, judged as one launch is; the campaign pools each cell's launch medians "
              "(mean, Student's t on L − 1 df). α = %.2f, K = 15 %%.\n\n",
              m, kRounds, alpha);
  std::printf("## Definite verdicts at a true mean error of exactly ±K\n\n");
  std::printf("Bounds: P(HOLDS at k = 2) ≤ α = 5 %% + 3 SE (%.2f); P(FALSIFIED at k) ≤ α/m = %.2f %% + 3 SE (%.2f).\n\n",
              3 * monte_carlo_se(alpha, campaigns) * 100, alpha / m * 100,
              3 * monte_carlo_se(alpha / m, campaigns) * 100);
  std::printf("| launch effect | L | HOLDS k=2 at (+K, 0) | HOLDS k=2 at (−K, −K) | FALSIFIED k=1 / k=2 all +K | "
              "FALSIFIED k=1 / k=2 all −K | within bounds |\n|---|---|---|---|---|---|---|\n");
  for (const LaunchCase& launch : launches)
    for (int size : sizes) {
      const CampaignRates hold_plus = run_campaigns(campaign(launch, size, {0, 0, delta, 0}), campaigns, ++seed);
      const CampaignRates hold_minus =
          run_campaigns(campaign(launch, size, {0, 0, -delta, -delta}), campaigns, ++seed);
      const CampaignRates plus = run_campaigns(campaign(launch, size, {delta, delta, delta, delta}), campaigns, ++seed);
      const CampaignRates minus =
          run_campaigns(campaign(launch, size, {-delta, -delta, -delta, -delta}), campaigns, ++seed);
      const double hold_bound = alpha + 3 * monte_carlo_se(alpha, campaigns);
      const double fals_bound = alpha / m + 3 * monte_carlo_se(alpha / m, campaigns);
      const bool ok = hold_plus.rate(hold_plus.holds[1]) <= hold_bound &&
                      hold_minus.rate(hold_minus.holds[1]) <= hold_bound &&
                      plus.rate(plus.falsified[0]) <= fals_bound && plus.rate(plus.falsified[1]) <= fals_bound &&
                      minus.rate(minus.falsified[0]) <= fals_bound && minus.rate(minus.falsified[1]) <= fals_bound;
      std::printf("| %s | %d | %.2f %% | %.2f %% | %.2f / %.2f %% | %.2f / %.2f %% | %s |\n", launch.name.c_str(), size,
                  hold_plus.rate(hold_plus.holds[1]) * 100, hold_minus.rate(hold_minus.holds[1]) * 100,
                  plus.rate(plus.falsified[0]) * 100, plus.rate(plus.falsified[1]) * 100,
                  minus.rate(minus.falsified[0]) * 100, minus.rate(minus.falsified[1]) * 100, ok ? "yes" : "NO");
    }

  print_study_level_boundary(campaigns, seed);

  std::printf("\n## Power: P(HOLDS at k = 2) at a true error of 0 (normal launch effects)\n\n");
  std::printf("The between-launch SD of a launch median is √(launch SD² + the median's own sampling variance); "
              "the column gives the launch effect's SD and, in brackets, the mean SD the campaigns measured at "
              "L = 10 (cell k = 1, b = 1). The last row is the L that launches_for_hold_power gives for 80 %% power "
              "at that measured SD.\n\n");
  const std::vector<double> sds = {0.0, 0.02, 0.05, 0.10, 0.20};
  const std::vector<int> power_sizes = {2, 3, 5, 10, 20};
  std::vector<double> measured(sds.size(), 0.0);
  for (std::size_t j = 0; j < sds.size(); ++j) {
    const LaunchCase launch{"", {LaunchEffect::Kind::normal, sds[j], 0}};
    measured[j] = run_campaigns(campaign(launch, 10, {0, 0, 0, 0}), campaigns, ++seed).between_sd_log[0];
  }
  std::printf("| L |");
  for (std::size_t j = 0; j < sds.size(); ++j) std::printf(" %.0f %% (%.1f %%) |", sds[j] * 100, measured[j] * 100);
  std::printf("\n|---|");
  for (std::size_t j = 0; j < sds.size(); ++j) std::printf("---|");
  std::printf("\n");
  for (int size : power_sizes) {
    std::printf("| %d |", size);
    for (double sd : sds) {
      const LaunchCase launch{"", {LaunchEffect::Kind::normal, sd, 0}};
      const CampaignRates r = run_campaigns(campaign(launch, size, {0, 0, 0, 0}), campaigns, ++seed);
      std::printf(" %.1f %% |", r.rate(r.holds[1]) * 100);
    }
    std::printf("\n");
  }
  std::printf("| L for 80 %% |");
  for (double sd : measured) std::printf(" %d |", tpb::launches_for_hold_power(sd, rule));
  std::printf("\n");
  return 0;
}
