#pragma once
// A campaign's sealed design (campaign.json): the study every launch runs
// (model, grid, backend, iterations, K, N rounds, α, seed, the outside forms
// with their bytes) and L, the number of launches, written and hashed before
// the first launch. Each launch records the design's SHA-256 in its
// registration; the pooled verdict (campaign_pooling.hpp) judges only
// launches that carry it and match it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "predictor/registration.hpp"

namespace tpb {

inline constexpr int kCampaignVersion = 1;
inline constexpr int kMaxCampaignLaunches = 999;  // launch-NNN

struct CampaignDesign {
  int version = kCampaignVersion;
  int launches = 0;             // L
  std::string model;            // config name (file stem), as registered
  std::string config_sha256;    // digest of the config file as read
  std::string backend;          // "cpu" or "cuda"
  std::string collective;       // "mpi", "nccl" or "oneshot"
  int layers = 0;               // layers run (--layers, 0: the config's count)
  int warmup_iters = 0;
  int iters = 0;
  Grid grid;
  int sweep_iters = 0;
  int calibration_rounds = 0;
  int rounds = 0;               // N per launch
  double time_budget_s = 0;     // the guard per launch
  std::uint64_t seed = 0;
  double kill_switch_pct = 0;   // K
  double family_alpha = 0;      // α
  int rule_version = kDecisionRuleVersion;
  std::vector<OutsideForm> outside_forms;  // --form: sealed with their bytes, registered by every launch
};

// Canonical text (stable key order, 2-space indent): what is hashed and stored.
std::string campaign_design_json(const CampaignDesign& design);
// UsageError naming the field when the text is not a campaign design, or
// when L is outside [2, kMaxCampaignLaunches].
CampaignDesign parse_campaign_design(std::string_view json_text);

// The first field of `launch` that differs from `sealed`, as "--batch: 1
// differs from the sealed 1,4"; empty when the launch's study is the sealed
// one (L is not compared).
std::string campaign_design_difference(const CampaignDesign& sealed, const CampaignDesign& launch);

// The same against a launch's registration (grid, model, backend,
// iterations, K, N, α, seed); empty when it matches.
std::string campaign_registration_difference(const CampaignDesign& sealed, const Registration& registration);

// "launch-007"
std::string launch_directory_name(int index);
// The index of a "launch-NNN" name; nullopt for any other name.
std::optional<int> parse_launch_directory_name(std::string_view name);

}  // namespace tpb
