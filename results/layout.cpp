#include "results/layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <regex>
#include <stdexcept>

namespace tpb {

bool readable_schema_version(std::int64_t version) { return version == kSchemaVersion; }

std::string unreadable_schema_message(std::int64_t version) {
  return fmt::format("/meta schema_version is {}, this tpbench reads only version {}", version, kSchemaVersion);
}

std::string step_root_path(StepRoot root) {
  switch (root) {
    case StepRoot::step: return "/step";
    case StepRoot::step_nocomm: return "/step_nocomm";
    case StepRoot::step_graph: return "/step_graph";
    case StepRoot::step_graph_nocomm: return "/step_graph_nocomm";
    case StepRoot::replay: return "/replay";
  }
  return "/step";
}

StepRoot step_root_for(bool replay, bool graph, bool no_comm) {
  if (replay) return StepRoot::replay;
  if (graph) return no_comm ? StepRoot::step_graph_nocomm : StepRoot::step_graph;
  return no_comm ? StepRoot::step_nocomm : StepRoot::step;
}

std::string step_point_path(StepRoot root, int k, int batch, int context) {
  return fmt::format("{}/k{}/b{}_c{}", step_root_path(root), k, batch, context);
}

std::string step_dataset_path(const std::string& point_path, const char* dataset) {
  return point_path + "/" + dataset;
}

std::string phase_dataset_path(const std::string& point_path, std::string_view phase_name) {
  return fmt::format("{}/{}/{}_us", point_path, step_dataset::phase_group, phase_name);
}

std::string control_t_rank_path(ControlMode mode, int batch, int context) {
  return fmt::format("/control/{}/b{}_c{}/{}", mode == ControlMode::concurrent ? "concurrent" : "alone", batch,
                     context, step_dataset::t_rank_us);
}

std::string sweep_root_path(SweepRoot root) { return root == SweepRoot::all_reduce ? "/sweep" : "/sweep_allgather"; }

std::string sweep_group_path(SweepRoot root, int k, std::string_view under) {
  return fmt::format("{}{}/k{}", under, sweep_root_path(root), k);
}

std::string sweep_dataset_path(SweepRoot root, int k, const char* dataset, std::string_view under) {
  return sweep_group_path(root, k, under) + "/" + dataset;
}

std::string ablation_root_path(std::string_view collective) {
  return fmt::format("{}/{}", kAblationGroup, collective);
}

std::string kv_dataset_path(const char* dataset) { return fmt::format("{}/{}", kKvGroup, dataset); }
std::string kv_block_path(int block_tokens) { return fmt::format("{}/blocks/b{}", kKvGroup, block_tokens); }
std::string kv_degree_path(int k) { return fmt::format("{}/tp/k{}", kKvGroup, k); }

const char* rounds_group(RoundsPhase phase) {
  return phase == RoundsPhase::calibrate ? kCalibrationRoundsGroup : kRoundsGroup;
}

std::string rounds_order_path(RoundsPhase phase) { return fmt::format("{}/order", rounds_group(phase)); }

std::string round_condition_path(RoundKind kind, int k, int batch, int context, RoundsPhase phase) {
  static constexpr const char* kKindGroups[] = {"step", "step_nocomm", "replay"};  // RoundKind's order
  return fmt::format("{}/{}/k{}/b{}_c{}", rounds_group(phase), kKindGroups[static_cast<int>(kind)], k, batch,
                     context);
}

std::string visit_dataset_path(const char* dataset, RoundsPhase phase) {
  return fmt::format("{}/visits/{}", rounds_group(phase), dataset);
}

std::string decision_degree_path(int k) { return fmt::format("{}/k{}", kDecisionGroup, k); }
std::string decision_row_path(int k, std::int64_t batch, int context) {
  return fmt::format("{}/b{}_c{}", decision_degree_path(k), batch, context);
}
std::string decision_choice_path(int context) { return fmt::format("{}/slo/c{}", kDecisionGroup, context); }

std::string verdict_group_path(std::string_view form, int k) {
  return fmt::format("{}/{}/k{}", kVerdictGroup, form, k);
}

namespace {

// What each placeholder of a schema pattern stands for.
struct Placeholder {
  std::string_view name;
  std::string_view regex;
};
constexpr Placeholder kPlaceholders[] = {
    {"{K}", "[0-9]+"},
    {"{B}", "[0-9]+"},
    {"{C}", "[0-9]+"},
    {"{N}", "[0-9]+"},
    {"{step}", "(step|step_nocomm|step_graph|step_graph_nocomm|replay)"},
    {"{sweep}", "(sweep|sweep_allgather)"},
    {"{rounds}", "(rounds|calibration_rounds)"},
    {"{kind}", "(step|step_nocomm|replay)"},
    {"{mode}", "(concurrent|alone)"},
    {"{impl}", "(mpi|nccl|oneshot)"},
    {"{form}", "[a-z_]+"},
    {"{name}", "[a-z_]+"},
};

// The groups that hold attributes only; every other group is the parent of a dataset.
constexpr const char* kAttributeGroups[] = {
    "/meta", "/config", "/study", "/ablation/{impl}", "/decision/k{K}/b{B}_c{C}", "/decision/slo/c{C}"};

std::regex pattern_regex(const std::vector<std::string>& patterns) {
  std::string alternatives;
  for (const std::string& pattern : patterns) {
    if (!alternatives.empty()) alternatives += '|';
    alternatives += '(';
    for (std::size_t i = 0; i < pattern.size();) {
      const std::size_t open = pattern.find('{', i);
      alternatives += pattern.substr(i, open - i);  // letters, digits, '_' and '/': literal in a regex
      if (open == std::string::npos) break;
      const std::size_t close = pattern.find('}', open);
      const std::string_view name = std::string_view(pattern).substr(open, close + 1 - open);
      const auto* placeholder = std::find_if(std::begin(kPlaceholders), std::end(kPlaceholders),
                                             [&](const Placeholder& p) { return p.name == name; });
      if (placeholder == std::end(kPlaceholders))
        throw std::logic_error(fmt::format("schema pattern {}: unknown placeholder {}", pattern, name));
      alternatives += placeholder->regex;
      i = close + 1;
    }
    alternatives += ')';
  }
  return std::regex("^(" + alternatives + ")$");
}

}  // namespace

const std::vector<std::string>& schema_dataset_patterns() {
  static const std::vector<std::string> patterns = [] {
    std::vector<std::string> p = {"/prereg/predictions_json", "/membw/read_GBps", "/d2d/copy_GBps", "/gemm/rate_GFLOPs",
                                  "/control/{mode}/b{B}_c{C}/t_rank_us"};
    namespace d = step_dataset;
    for (const std::string& name : std::initializer_list<std::string>{
             d::t_step_us, d::t_rank_us, d::t_host_us, d::t_ar_insitu_us, d::t_ag_insitu_us, d::tp_group,
             d::experts_touched, fmt::format("{}/{{name}}_us", d::phase_group)})
      p.push_back(fmt::format("/{{step}}/k{{K}}/b{{B}}_c{{C}}/{}", name));
    for (const char* name :
         {"bytes", "count", "time_us", "time_inplace_us", "time_median_us", "time_inplace_median_us", "algbw_GBps",
          "busbw_GBps", "algbw_inplace_GBps", "busbw_inplace_GBps", "wrong", "wrong_inplace", "wrong_per_rank",
          "wrong_inplace_per_rank", "slowest_group", "slowest_group_inplace"})
      p.push_back(fmt::format("/{{sweep}}/k{{K}}/{}", name));
    for (const char* name : {"batch", "context", "predicted_t_step_us", "measured_t_step_us", "measured_ci_low_us",
                             "measured_ci_high_us", "signed_error_pct", "localizing_term"})
      p.push_back(fmt::format("/verdict/{{form}}/k{{K}}/{}", name));
    for (const char* name : {"order", "block_of_condition"}) p.push_back(fmt::format("/{{rounds}}/{}", name));
    for (const char* name :
         {visit_dataset::condition, visit_dataset::round, visit_dataset::execution_index, visit_dataset::start_unix_us,
          visit_dataset::duration_us, visit_dataset::steal_pct, visit_dataset::load_avg_1m})
      p.push_back(fmt::format("/{{rounds}}/visits/{}", name));
    for (const char* name : {round_dataset::t_rank_us, round_dataset::t_host_us, round_dataset::t_collective_insitu_us})
      p.push_back(fmt::format("/{{rounds}}/{{kind}}/k{{K}}/b{{B}}_c{{C}}/{}", name));
    for (const char* name : {"lengths", "contexts", "block_tokens"}) p.push_back(fmt::format("/kv/{}", name));
    p.push_back("/kv/tp/k{K}/admissible_sequences");
    for (const char* name : {"tokens", "payload_bytes", "allocated_bytes", "tail_waste_bytes", "table_entries"})
      p.push_back(fmt::format("/kv/blocks/b{{N}}/{}", name));
    for (const char* name : {"contexts", "max_batch"}) p.push_back(fmt::format("/decision/k{{K}}/{}", name));
    return p;
  }();
  return patterns;
}

const std::vector<std::string>& schema_group_patterns() {
  static const std::vector<std::string> patterns = [] {
    std::vector<std::string> paths = schema_dataset_patterns();
    std::vector<std::string> groups(std::begin(kAttributeGroups), std::end(kAttributeGroups));
    paths.insert(paths.end(), groups.begin(), groups.end());
    for (const std::string& path : paths)
      for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1))
        groups.push_back(path.substr(0, slash));
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    return groups;
  }();
  return patterns;
}

bool schema_names(const std::string& path, bool is_group) {
  // An ablation root holds the sweeps, steps and registration of its collective.
  static const std::regex ablated(R"(^/ablation/(mpi|nccl|oneshot)(/(sweep|sweep_allgather|step|prereg)(/.*)?)$)");
  std::smatch below;
  if (std::regex_match(path, below, ablated)) return schema_names(below[2].str(), is_group);
  static const std::regex groups = pattern_regex(schema_group_patterns());
  static const std::regex datasets = pattern_regex(schema_dataset_patterns());
  return std::regex_match(path, is_group ? groups : datasets);
}

}  // namespace tpb
