#include "mpi_bench/pipeline/campaign.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.hpp"
#include "common/parse.hpp"
#include "common/read_file.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "predictor/sha256.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCampaignJson = "campaign.json";

}  // namespace

CampaignDesign campaign_design_for(const StudyDeclaration& d, double kill_switch_pct, int launches,
                                   const std::vector<OutsideForm>& outside_forms) {
  if (launches < 2 || launches > kMaxCampaignLaunches)
    throw UsageError(fmt::format("--launches: {} is outside [2, {}] (a campaign pools at least two launches)",
                                 launches, kMaxCampaignLaunches));
  const ModelConfig config = load_model_config(d.model_path);
  CampaignDesign c;
  c.launches = launches;
  c.model = config.name;
  c.config_sha256 = sha256_hex(config.json_text);
  c.backend = std::string(to_string(d.backend));
  c.collective = std::string(to_string(d.collective));
  c.layers = d.layers > 0 ? d.layers : config.num_layers;
  c.warmup_iters = d.warmup_iters;
  c.iters = d.iters;
  c.grid = d.grid;
  c.sweep_iters = d.sweep_iters;
  c.calibration_rounds = d.calibration_rounds;
  c.rounds = d.rounds;
  c.time_budget_s = d.time_budget_s;
  c.seed = d.bootstrap_seed;
  const RoundsDesign rounds = make_rounds_design(d.rounds, d.time_budget_s, d.bootstrap_seed, kill_switch_pct);
  c.kill_switch_pct = rounds.rule.kill_switch_pct;
  c.family_alpha = rounds.rule.family_alpha;
  c.rule_version = rounds.rule.version;
  c.outside_forms = outside_forms;
  return c;
}

SealedCampaign seal_campaign(const std::string& dir, const CampaignDesign& design) {
  const fs::path root(dir);
  if (fs::exists(root / kCampaignJson))
    throw UsageError(fmt::format("campaign init: '{}' already holds a sealed campaign.json; a design is sealed once",
                                 dir));
  if (fs::is_directory(root))
    for (const auto& entry : fs::directory_iterator(root))
      if (parse_launch_directory_name(entry.path().filename().string()) || fs::exists(entry.path() / "study.h5"))
        throw UsageError(fmt::format("campaign init: '{}' already holds launches ({}); seal a campaign before its "
                                     "first launch, in a new directory",
                                     dir, entry.path().filename().string()));
  fs::create_directories(root);
  return {dir, design, write_sealed_text(dir, kCampaignJson, campaign_design_json(design), "campaign init")};
}

SealedCampaign read_sealed_campaign(const std::string& dir) {
  const fs::path root(dir);
  const std::optional<std::string> text = read_file(root / kCampaignJson);
  if (!text)
    throw UsageError(fmt::format("--campaign: '{}' holds no campaign.json (seal one with 'mpi_bench campaign init')",
                                 dir));
  const std::optional<std::string> digest_line = read_file(root / (std::string(kCampaignJson) + ".sha256"));
  if (!digest_line || digest_line->size() < 64)
    throw UsageError(fmt::format("--campaign: '{}' holds no campaign.json.sha256", dir));
  const std::string sealed_digest = digest_line->substr(0, 64);
  SealedCampaign sealed{dir, {}, sha256_hex(*text)};
  if (sealed.sha256 != sealed_digest)
    throw UsageError(fmt::format("--campaign: {}/campaign.json has sha256 {} but was sealed as {}: the design was "
                                 "edited after init",
                                 dir, sealed.sha256.substr(0, 16), sealed_digest.substr(0, 16)));
  sealed.design = parse_campaign_design(*text);
  return sealed;
}

std::string launch_dir(const SealedCampaign& campaign, int index) {
  return (fs::path(campaign.dir) / launch_directory_name(index)).string();
}

int resolve_launch_index(const SealedCampaign& campaign, std::optional<int> requested) {
  const int launches = campaign.design.launches;
  const char* array_task = std::getenv("SLURM_ARRAY_TASK_ID");
  std::optional<int> index = requested;
  const char* source = "--launch";
  if (!index && array_task && *array_task) {
    index = static_cast<int>(parse_integer("SLURM_ARRAY_TASK_ID", array_task, 0));
    source = "SLURM_ARRAY_TASK_ID";
  }
  if (!index) {
    for (int i = 1; i <= launches && !index; ++i)
      if (!fs::exists(launch_dir(campaign, i))) index = i;
    if (!index)
      throw UsageError(fmt::format("--campaign: all {} launches of '{}' exist; the campaign is complete",
                                   launches, campaign.dir));
    source = "next free launch";
  }
  if (*index < 1 || *index > launches)
    throw UsageError(fmt::format("{}: launch {} is outside the campaign's sealed 1..{}", source, *index, launches));
  if (fs::exists(fs::path(launch_dir(campaign, *index)) / "study.h5"))
    throw UsageError(fmt::format("{}: launch {} already holds a study ({}/study.h5)", source, *index,
                                 launch_dir(campaign, *index)));
  return *index;
}

}  // namespace tpb
