#include "campaign_simulator.hpp"

#include <stdexcept>
#include <vector>

namespace tpb::sim {

CampaignRates run_campaigns(const CampaignCase& c, int campaigns, std::uint64_t seed) {
  if (campaigns < 1 || c.launches < 2) throw std::invalid_argument("run_campaigns: no campaigns or L < 2");
  FamilyCase family = c.family;
  family.truth_is_launch_median = false;
  const std::array<double, kFamilyBatches> medians{noise_median(family.noise[0]), noise_median(family.noise[1])};
  SplitMix64 rng(seed);
  CampaignRates rates;
  rates.studies = campaigns;
  for (int s = 0; s < campaigns; ++s) {
    std::array<std::vector<double>, kFamilyCells> launch_medians;
    for (int l = 0; l < c.launches; ++l) {
      const FamilyDraw draw = draw_family(family, medians, rng);
      for (int k = 0; k < kFamilyDegrees; ++k)
        for (int b = 0; b < kFamilyBatches; ++b)
          launch_medians[static_cast<std::size_t>(kFamilyBatches * k + b)].push_back(
              draw.at_k[static_cast<std::size_t>(k)].cells[static_cast<std::size_t>(b)].median_log);
    }
    bool any = false;
    for (int k = 0; k < kFamilyDegrees; ++k) {
      std::vector<CellJudgement> cells;
      for (int b = 0; b < kFamilyBatches; ++b) {
        const PooledCell pooled =
            pool_cell(launch_medians[static_cast<std::size_t>(kFamilyBatches * k + b)], family.rule, kFamilyCells);
        if (k == 0 && b == 0) rates.between_sd_log += pooled.between_sd_log / campaigns;
        cells.push_back(pooled.judged);
      }
      const Outcome outcome = judge_form_at_k(std::move(cells), true).outcome;
      rates.holds[static_cast<std::size_t>(k)] += outcome == Outcome::holds;
      rates.falsified[static_cast<std::size_t>(k)] += outcome == Outcome::falsified;
      any = any || outcome == Outcome::falsified;
    }
    rates.falsified_any_k += any;
  }
  return rates;
}

}  // namespace tpb::sim
