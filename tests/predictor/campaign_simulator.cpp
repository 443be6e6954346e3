#include "campaign_simulator.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "predictor/round_evaluation.hpp"
#include "verdict_lookup.hpp"

namespace tpb::sim {
namespace {

static_assert(kGridCells == kFamilyBatches, "the two simulators share the quick start's batches");

using LaunchMedians = std::array<std::vector<double>, kFamilyCells>;  // per cell, each launch's median of d

// Pools one campaign's launches cell by cell and judges each k as the
// campaign verdict does; the A/A is held, so HOLDS is counted at its most.
void count_campaign(const LaunchMedians& launch_medians, const DecisionRule& rule, int campaigns,
                    CampaignRates& rates) {
  bool any = false;
  for (int k = 0; k < kFamilyDegrees; ++k) {
    std::vector<CellJudgement> cells;
    for (int b = 0; b < kFamilyBatches; ++b) {
      const auto cell = static_cast<std::size_t>(kFamilyBatches * k + b);
      const PooledCell pooled = pool_cell(launch_medians[cell], rule, kFamilyCells);
      rates.between_sd_log[cell] += pooled.between_sd_log / campaigns;
      cells.push_back(pooled.judged);
    }
    const Outcome outcome = judge_form_at_k(std::move(cells), true).outcome;
    rates.holds[static_cast<std::size_t>(k)] += outcome == Outcome::holds;
    rates.falsified[static_cast<std::size_t>(k)] += outcome == Outcome::falsified;
    any = any || outcome == Outcome::falsified;
  }
  rates.falsified_any_k += any;
}

// One launch of the study-level simulator: its `ideal` median of d per cell.
std::array<double, kFamilyCells> study_launch_medians(const SimulatorConfig& config, std::uint64_t seed) {
  const SimulatedStudy study = simulate_study(config, seed);
  const RoundsEvaluation evaluation = evaluate_rounds(study.registration, study.rounds);
  std::array<double, kFamilyCells> medians{};
  for (int k = 0; k < kFamilyDegrees; ++k) {
    const FormKVerdict& ideal = find_verdict(evaluation, "ideal", k + 1);
    for (int b = 0; b < kFamilyBatches; ++b)
      medians[static_cast<std::size_t>(kFamilyBatches * k + b)] =
          ideal.judged.cells.at(static_cast<std::size_t>(b)).median_log;
  }
  return medians;
}

}  // namespace

CampaignRates run_campaigns(const CampaignCase& c, int campaigns, std::uint64_t seed) {
  if (campaigns < 1 || c.launches < 2) throw std::invalid_argument("run_campaigns: no campaigns or L < 2");
  FamilyCase family = c.family;
  family.truth_is_launch_median = false;
  const std::array<double, kFamilyBatches> medians{noise_median(family.noise[0]), noise_median(family.noise[1])};
  SplitMix64 rng(seed);
  CampaignRates rates;
  rates.studies = campaigns;
  for (int s = 0; s < campaigns; ++s) {
    LaunchMedians launch_medians;
    for (int l = 0; l < c.launches; ++l) {
      const FamilyDraw draw = draw_family(family, medians, rng);
      for (int k = 0; k < kFamilyDegrees; ++k)
        for (int b = 0; b < kFamilyBatches; ++b)
          launch_medians[static_cast<std::size_t>(kFamilyBatches * k + b)].push_back(
              draw.at_k[static_cast<std::size_t>(k)].cells[static_cast<std::size_t>(b)].median_log);
    }
    count_campaign(launch_medians, family.rule, campaigns, rates);
  }
  return rates;
}

CampaignRates run_study_campaigns(const SimulatorConfig& config, int launches, int campaigns, std::uint64_t seed) {
  if (campaigns < 1 || launches < 2) throw std::invalid_argument("run_study_campaigns: no campaigns or L < 2");
  SplitMix64 rng(seed);
  CampaignRates rates;
  rates.studies = campaigns;
  for (int s = 0; s < campaigns; ++s) {
    LaunchMedians launch_medians;
    for (int l = 0; l < launches; ++l) {
      const auto medians = study_launch_medians(config, rng.next());
      for (std::size_t cell = 0; cell < kFamilyCells; ++cell) launch_medians[cell].push_back(medians[cell]);
    }
    count_campaign(launch_medians, DecisionRule{}, campaigns, rates);
  }
  return rates;
}

SimulatorConfig with_estimand_at(const SimulatorConfig& config, const std::array<double, kGridCells>& target_log,
                                 int pilot_launches, std::uint64_t seed) {
  if (pilot_launches < 1) throw std::invalid_argument("with_estimand_at: no pilot launches");
  SimulatorConfig placed = config;
  for (std::size_t b = 0; b < kGridCells; ++b) placed.true_error[b] = std::expm1(target_log[b]);
  SplitMix64 rng(seed);
  std::array<double, kGridCells> mean{};
  for (int l = 0; l < pilot_launches; ++l) {
    const auto medians = study_launch_medians(placed, rng.next());
    for (std::size_t b = 0; b < kGridCells; ++b) mean[b] += medians[kFamilyBatches + b] / pilot_launches;
  }
  // d moves one for one with ln(1 + e): one correction places it.
  for (std::size_t b = 0; b < kGridCells; ++b)
    placed.true_error[b] = std::expm1(2 * target_log[b] - mean[b]);
  return placed;
}

}  // namespace tpb::sim
