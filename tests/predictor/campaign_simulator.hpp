#pragma once
// Campaigns of rule version 6's pooled verdict, on either simulator.
//
// On the cell-level generator (log_ratio_generator.hpp): L launches
// of the quick start's family, each launch's own shift drawn from the launch
// effect, each judged on its rounds as one launch is; the campaign pools
// their per-cell medians with pool_cell (predictor/campaign_pooling.hpp) and
// judges each k with judge_form_at_k, the A/A held. The truth is the form's
// error over launches (FamilyCase::truth_is_launch_median = false): the
// campaign's estimand, the mean over launches of each launch's median.
#include <cstdint>

#include "log_ratio_generator.hpp"
#include "predictor/campaign_pooling.hpp"
#include "step_time_simulator.hpp"

namespace tpb::sim {

struct CampaignCase {
  FamilyCase family;  // truth_is_launch_median is set false by run_campaigns
  int launches = 5;   // L
};

// The pooled verdicts at each k; `between_sd_log` per cell (k-major, as
// FamilyCase) the mean over campaigns of the between-launch SD of the launch
// medians, for the power table.
struct CampaignRates : FamilyRates {
  std::array<double, kFamilyCells> between_sd_log{};
};

CampaignRates run_campaigns(const CampaignCase& c, int campaigns, std::uint64_t seed);

// On the study-level simulator (step_time_simulator.hpp): each launch is laid
// out visit by visit and judged by evaluate_rounds, and the campaign pools
// the `ideal` form's cells. A launch effect acts here where this machine
// shows it, on every rank's times (the two levels 1.44× apart, a slow rank),
// and meets the same-round pairing as a real launch's does.
CampaignRates run_study_campaigns(const SimulatorConfig& config, int launches, int campaigns, std::uint64_t seed);

// `config` with its TP-2 true errors moved so that the campaign's estimand,
// the mean over launches of each launch's `ideal` k = 2 median of d, sits at
// `target_log` per batch: the pairing and the group max leave a small offset
// between the error set and the median a launch sees, measured here over
// `pilot_launches` launches (its SE: the between-launch SD / √pilot).
SimulatorConfig with_estimand_at(const SimulatorConfig& config, const std::array<double, kGridCells>& target_log,
                                 int pilot_launches, std::uint64_t seed);

}  // namespace tpb::sim
