#pragma once
// A campaign's directory on disk: DIR/campaign.json and its SHA-256
// (campaign.json.sha256, sha256sum -c format), sealed by `campaign init`
// before the first launch; one launch per DIR/launch-NNN/ (1-based, up to L)
// written by `run --campaign DIR`; the pooled verdict's DIR/campaign.h5 and
// DIR/report.md.
#include <optional>
#include <string>
#include <vector>

#include "mpi_bench/pipeline/study_runtime.hpp"
#include "predictor/campaign_design.hpp"

namespace tpb {

struct SealedCampaign {
  std::string dir;
  CampaignDesign design;
  std::string sha256;  // of campaign.json as sealed
};

// The design a study declaration (and K) asks for, L launches, with the
// outside forms every launch registers: the config file is read for its
// name, digest and layer count. UsageError naming a bad value.
CampaignDesign campaign_design_for(const StudyDeclaration& declaration, double kill_switch_pct, int launches,
                                   const std::vector<OutsideForm>& outside_forms);

// Writes DIR/campaign.json and its SHA-256. UsageError when DIR already
// holds a campaign.json or any launch-NNN.
SealedCampaign seal_campaign(const std::string& dir, const CampaignDesign& design);

// DIR's sealed design. UsageError naming the file when it is missing, when
// its digest differs from campaign.json.sha256 (edited after init), or when
// it is not a campaign design.
SealedCampaign read_sealed_campaign(const std::string& dir);

// The launch index of `run --campaign`: `requested` (--launch N) when given,
// else SLURM_ARRAY_TASK_ID when set, else the smallest index in 1..L with no
// launch directory. UsageError naming the index when it is outside 1..L,
// when none is free, or when its directory already holds a study.
int resolve_launch_index(const SealedCampaign& campaign, std::optional<int> requested);

// DIR/launch-NNN.
std::string launch_dir(const SealedCampaign& campaign, int index);

}  // namespace tpb

namespace tpb {

// verdict --campaign DIR (rank 0): every launch-NNN verified and checked
// against the sealed design and digest, judged under rule 6, pooled
// (campaign_verdict.hpp) into DIR/campaign.h5 and DIR/report.md; prints the
// pooled table. A launch whose file is unfinished (complete=0: killed or
// cancelled) or absent is named and not counted, and the verdict says
// INCOMPLETE. UsageError (one line naming it) for a launch that fails verify,
// lacks the campaign's digest or differs from the design, a launch index past
// L, and a study in DIR that is not a launch.
std::string campaign_verdict_stage(const std::string& dir);

}  // namespace tpb
