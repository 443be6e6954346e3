#pragma once
// Campaigns on the cell-level generator (log_ratio_generator.hpp): L launches
// of the quick start's family, each launch's own shift drawn from the launch
// effect, each judged on its rounds as one launch is; the campaign pools
// their per-cell medians with pool_cell (predictor/campaign_pooling.hpp) and
// judges each k with judge_form_at_k, the A/A held. The truth is the form's
// error over launches (FamilyCase::truth_is_launch_median = false): the
// campaign's estimand, the mean over launches of each launch's median.
#include <cstdint>

#include "log_ratio_generator.hpp"
#include "predictor/campaign_pooling.hpp"

namespace tpb::sim {

struct CampaignCase {
  FamilyCase family;  // truth_is_launch_median is set false by run_campaigns
  int launches = 5;   // L
};

// The pooled verdicts at each k; `between_sd_log` the mean over campaigns of
// the between-launch SD of cell 0 (k = 1, b = 1), for the power table.
struct CampaignRates : FamilyRates {
  double between_sd_log = 0;
};

CampaignRates run_campaigns(const CampaignCase& c, int campaigns, std::uint64_t seed);

}  // namespace tpb::sim
