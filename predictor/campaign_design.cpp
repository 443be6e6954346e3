#include "predictor/campaign_design.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "predictor/json_field.hpp"

namespace tpb {
namespace {

using nlohmann::ordered_json;

// A field of campaign.json, or a UsageError naming it (json_field.hpp).
constexpr const char* kWhere = "campaign.json";
template <typename T>
T field(const ordered_json& object, const char* name) {
  return json_field<T>(object, name, kWhere);
}

// The keys of its workload and study sections, in document order: one list
// for the writer and the reader.
constexpr auto kWorkloadMembers = [](auto&& visit, auto& d) {
  visit("model", d.model);
  visit("config_sha256", d.config_sha256);
  visit("backend", d.backend);
  visit("collective", d.collective);
  visit("layers", d.layers);
  visit("warmup_iters", d.warmup_iters);
  visit("iters", d.iters);
};

constexpr auto kStudyMembers = [](auto&& visit, auto& d) {
  visit("sweep_iters", d.sweep_iters);
  visit("calibration_rounds", d.calibration_rounds);
  visit("rounds", d.rounds);
  visit("time_budget_s", d.time_budget_s);
  visit("seed", d.seed);
};

std::string list_text(const std::vector<int>& values) { return fmt::format("{}", fmt::join(values, ",")); }

// "a=SHA256 b=SHA256", or "none": the outside forms as compared (their bytes, by digest).
std::string outside_forms_text(const std::vector<OutsideForm>& forms) {
  std::vector<std::string> named;
  for (const OutsideForm& form : forms) named.push_back(fmt::format("{}={}", form.name, form.sha256));
  return named.empty() ? "none" : fmt::format("{}", fmt::join(named, " "));
}

// Appends "FLAG: LAUNCH differs from the campaign's sealed SEALED" for the first difference only.
template <typename T>
void compare(std::string& out, const char* flag, const T& sealed, const T& launch) {
  if (!out.empty() || sealed == launch) return;
  if constexpr (std::is_same_v<T, std::vector<int>>)
    out = fmt::format("{}: {} differs from the campaign's sealed {}", flag, list_text(launch), list_text(sealed));
  else
    out = fmt::format("{}: {} differs from the campaign's sealed {}", flag, launch, sealed);
}

}  // namespace

std::string campaign_design_json(const CampaignDesign& d) {
  ordered_json document = {
      {"campaign_version", d.version},
      {"launches", d.launches},
      {"estimand", "per cell, the mean over launches of each launch's median of ln(measured / paired prediction)"},
      {"rule_version", d.rule_version},
      {"kill_switch_pct", d.kill_switch_pct},
      {"family_alpha", d.family_alpha},
      {"workload", members_json(d, kWorkloadMembers)},
      {"grid", members_json(d.grid, kGridMembers)},
      {"study", members_json(d, kStudyMembers)}};
  if (!d.outside_forms.empty()) document["outside_forms"] = outside_forms_json(d.outside_forms);
  return document.dump(2) + "\n";
}

CampaignDesign parse_campaign_design(std::string_view json_text) {
  const ordered_json doc = parse_json_document(json_text, kWhere);
  CampaignDesign d;
  d.version = field<int>(doc, "campaign_version");
  if (d.version != kCampaignVersion)
    throw UsageError(fmt::format("campaign.json: campaign version {} is not {}", d.version, kCampaignVersion));
  d.launches = field<int>(doc, "launches");
  if (d.launches < 2 || d.launches > kMaxCampaignLaunches)
    throw UsageError(fmt::format("campaign.json: launches {} is outside [2, {}]", d.launches, kMaxCampaignLaunches));
  d.rule_version = field<int>(doc, "rule_version");
  if (d.rule_version != kDecisionRuleVersion)
    throw UsageError(fmt::format("campaign.json: rule version {} is not {}", d.rule_version, kDecisionRuleVersion));
  d.kill_switch_pct = field<double>(doc, "kill_switch_pct");
  d.family_alpha = field<double>(doc, "family_alpha");
  read_members(json_section(doc, "workload", kWhere), kWhere, d, kWorkloadMembers);
  read_members(json_section(doc, "grid", kWhere), kWhere, d.grid, kGridMembers);
  read_members(json_section(doc, "study", kWhere), kWhere, d, kStudyMembers);
  // Only a campaign sealed with --form carries outside forms.
  if (doc.contains("outside_forms"))
    d.outside_forms =
        prefix_usage_errors(kWhere, [&] { return parse_sealed_outside_forms(doc.at("outside_forms"), d.grid); });
  return d;
}

std::string campaign_design_difference(const CampaignDesign& s, const CampaignDesign& l) {
  std::string out;
  compare(out, "--model", s.model, l.model);
  compare(out, "--model (config sha256)", s.config_sha256, l.config_sha256);
  compare(out, "--backend", s.backend, l.backend);
  compare(out, "--collective", s.collective, l.collective);
  compare(out, "--layers", s.layers, l.layers);
  compare(out, "--warmup_iters", s.warmup_iters, l.warmup_iters);
  compare(out, "--iters", s.iters, l.iters);
  compare(out, "--tp", s.grid.tp, l.grid.tp);
  compare(out, "--batch", s.grid.batch, l.grid.batch);
  compare(out, "--context", s.grid.context, l.grid.context);
  compare(out, "--sweep-iters", s.sweep_iters, l.sweep_iters);
  compare(out, "--calibration-rounds", s.calibration_rounds, l.calibration_rounds);
  compare(out, "--rounds", s.rounds, l.rounds);
  compare(out, "--time-budget", s.time_budget_s, l.time_budget_s);
  compare(out, "--seed", s.seed, l.seed);
  compare(out, "--kill-switch", s.kill_switch_pct, l.kill_switch_pct);
  compare(out, "--alpha", s.family_alpha, l.family_alpha);
  compare(out, "--form", outside_forms_text(s.outside_forms), outside_forms_text(l.outside_forms));
  return out;
}

std::string campaign_registration_difference(const CampaignDesign& s, const Registration& r) {
  // The launch's study as its registration sealed it; what that does not record is the campaign's.
  CampaignDesign launch = s;
  launch.model = r.workload.model;
  launch.config_sha256 = r.workload.config_sha256;
  launch.backend = r.workload.backend;
  launch.warmup_iters = r.workload.warmup_iters;
  launch.iters = r.workload.iters;
  launch.grid = r.grid;
  launch.rounds = r.design.rounds;
  launch.seed = r.design.order_seed;
  launch.kill_switch_pct = r.design.rule.kill_switch_pct;
  launch.family_alpha = r.design.rule.family_alpha;
  launch.outside_forms = r.outside_forms;
  return campaign_design_difference(s, launch);
}

std::string launch_directory_name(int index) { return fmt::format("launch-{:03d}", index); }

std::optional<int> parse_launch_directory_name(std::string_view name) {
  constexpr std::string_view prefix = "launch-";
  if (name.size() != prefix.size() + 3 || name.substr(0, prefix.size()) != prefix) return std::nullopt;
  int index = 0;
  const char* begin = name.data() + prefix.size();
  const auto [end, error] = std::from_chars(begin, name.data() + name.size(), index);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return index;
}

}  // namespace tpb
