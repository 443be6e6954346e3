#pragma once
// A campaign's pooled verdict on disk: DIR/campaign.h5 and DIR/report.md
// (with fig_campaign_launches.png, drawn by campaign_plots.py from the h5).
// campaign.h5, written once by the pooled verdict:
//   /campaign                  attrs campaign_sha256, launches_sealed, incomplete, rule_version, alpha,
//                              kill_switch_pct, family_cells, control_aa, estimand; datasets
//                              launches_counted, launches_missing (1-based indices)
//   /campaign/aa               per A/A cell (rank, batch, context): cell_* as below, family of one
//   /campaign/verdict/FORM/kK  attrs verdict, reason; datasets cell_batch, cell_context, cell_verdict,
//                              cell_error_pct (the pooled mean as (exp − 1) × 100), cell_hold_low_pct,
//                              cell_hold_high_pct, cell_falsify_low_pct, cell_falsify_high_pct (NaN when not
//                              formed), cell_between_sd_pct (the SD of d over launches × 100),
//                              cell_smallest_falsifiable_pct, cell_largest_holdable_pct (NaN: none),
//                              cell_launches_for_power, launch_error_pct (cells × launches counted)
#include <string>
#include <vector>

#include "predictor/campaign_verdict.hpp"

namespace tpb {

struct CampaignContext {
  std::string dir;
  std::string campaign_sha256;
  CampaignDesign design;
  Grid grid;
  std::vector<std::string> notes;  // lines the verdict printed about launches (missing, incomplete)
};

// Writes DIR/campaign.h5 (replacing an earlier one: the verdict is recomputed
// from the launches each time).
void write_campaign_h5(const CampaignContext& context, const CampaignVerdict& verdict);

// Writes DIR/report.md and draws its figure from DIR/campaign.h5; returns the report's path.
std::string write_campaign_report(const CampaignContext& context, const CampaignVerdict& verdict);

// The console table of the pooled verdict, one line per (form, k).
std::string campaign_summary(const CampaignContext& context, const CampaignVerdict& verdict);

}  // namespace tpb
