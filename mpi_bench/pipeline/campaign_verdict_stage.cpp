// verdict --campaign: the launches of a sealed campaign pooled into one
// verdict about the machine (campaign.hpp).
#include <fmt/format.h>

#include <filesystem>

#include "common/error.hpp"
#include "mpi_bench/pipeline/campaign.hpp"
#include "predictor/campaign_verdict.hpp"
#include "results/campaign_file.hpp"
#include "results/custody.hpp"
#include "results/layout.hpp"
#include "results/round_records.hpp"
#include "results/round_verdict_file.hpp"
#include "results/verify.hpp"

namespace tpb {
namespace {

namespace fs = std::filesystem;

// Refuses anything in DIR that claims to be a study but is not a launch of it.
void refuse_foreign_entries(const SealedCampaign& campaign) {
  for (const auto& entry : fs::directory_iterator(campaign.dir)) {
    const std::string name = entry.path().filename().string();
    if (const std::optional<int> index = parse_launch_directory_name(name)) {
      if (*index < 1 || *index > campaign.design.launches)
        throw UsageError(fmt::format("--campaign: {}/{} is outside the campaign's sealed launches 1..{}",
                                     campaign.dir, name, campaign.design.launches));
    } else if (entry.is_directory() && fs::exists(entry.path() / "study.h5")) {
      throw UsageError(fmt::format("--campaign: {}/{} holds a study that is not a launch of this campaign "
                                   "(launches are launch-NNN)",
                                   campaign.dir, name));
    } else if (entry.path().extension() == ".h5" && name != "campaign.h5") {
      throw UsageError(fmt::format("--campaign: {}/{} is a results file that is not a launch of this campaign",
                                   campaign.dir, name));
    }
  }
}

// The launch's evaluation, or nullopt (with a note) when it is absent or unfinished.
std::optional<LaunchEvaluation> judge_launch(const SealedCampaign& campaign, int index,
                                             std::vector<std::string>& notes) {
  const std::string dir = launch_dir(campaign, index);
  const std::string path = (fs::path(dir) / "study.h5").string();
  if (!fs::exists(dir)) {
    notes.push_back(fmt::format("launch {}: not run ({} absent); not counted", index, dir));
    return std::nullopt;
  }
  if (!fs::exists(path)) {
    notes.push_back(fmt::format("launch {}: no study.h5 in {} (failed or cancelled before measuring); not counted",
                                index, dir));
    return std::nullopt;
  }
  const VerifyResult verified = verify_results_file(path);
  if (!verified.unreadable() && !verified.complete) {
    notes.push_back(fmt::format("launch {}: {} is unfinished (complete=0: killed or cancelled mid-run); not counted",
                                index, path));
    return std::nullopt;
  }
  if (!verified.ok())
    throw UsageError(fmt::format("--campaign: launch {} fails verify: {}", index, verified.summary()));
  const H5File file(path, H5Mode::read_only);
  const Registration r = checked_registration(file);
  if (!r.campaign_sha256)
    throw UsageError(fmt::format("--campaign: launch {} ({}) carries no campaign digest: a study not run with "
                                 "'run --campaign {}'",
                                 index, path, campaign.dir));
  if (*r.campaign_sha256 != campaign.sha256)
    throw UsageError(fmt::format("--campaign: launch {} ({}) was run for campaign {}, not this one ({})", index, path,
                                 r.campaign_sha256->substr(0, 16), campaign.sha256.substr(0, 16)));
  if (const std::string difference = campaign_registration_difference(campaign.design, r); !difference.empty())
    throw UsageError(fmt::format("--campaign: launch {} ({}): {}", index, path, difference));
  if (!has_rounds(file))
    throw UsageError(fmt::format("--campaign: launch {} ({}) holds no measurement rounds", index, path));
  if (!file.exists(kVerdictGroup))
    throw UsageError(fmt::format("--campaign: launch {} ({}) holds no verdict: run 'mpi_bench verdict {}'", index,
                                 path, path));
  // Each launch's verdict as its own `verdict` wrote it: computed once.
  return LaunchEvaluation{index, read_round_verdicts(file, r)};
}

}  // namespace

std::string campaign_verdict_stage(const std::string& dir) {
  const SealedCampaign campaign = read_sealed_campaign(dir);
  refuse_foreign_entries(campaign);
  CampaignContext context{dir, campaign.sha256, campaign.design, campaign.design.grid, {}};
  std::vector<LaunchEvaluation> launches;
  for (int i = 1; i <= campaign.design.launches; ++i)
    if (std::optional<LaunchEvaluation> l = judge_launch(campaign, i, context.notes)) launches.push_back(std::move(*l));
  if (launches.empty())
    throw UsageError(fmt::format("--campaign: no launch of {} is finished; nothing to pool", dir));
  const CampaignVerdict verdict = pool_campaign(campaign.design, launches);
  write_campaign_h5(context, verdict);
  const std::string report = write_campaign_report(context, verdict);
  std::string text;
  for (const std::string& note : context.notes) text += "# " + note + "\n";
  text += campaign_summary(context, verdict);
  text += fmt::format("# campaign: {}/campaign.h5\n# report: {}\n", dir, report);
  return text;
}

}  // namespace tpb
