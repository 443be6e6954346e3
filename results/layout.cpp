#include "results/layout.hpp"

#include <fmt/format.h>

#include <regex>

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
  const char* root = rounds_group(phase);
  switch (kind) {
    case RoundKind::step: return fmt::format("{}/step/k{}/b{}_c{}", root, k, batch, context);
    case RoundKind::step_nocomm: return fmt::format("{}/step_nocomm/k{}/b{}_c{}", root, k, batch, context);
    case RoundKind::replay: return fmt::format("{}/replay/k{}/b{}_c{}", root, k, batch, context);
  }
  return root;
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

bool schema_names(const std::string& path, bool is_group) {
  // An ablation root holds the sweeps, steps and registration of its collective.
  static const std::regex ablation(R"(^/ablation(/(mpi|nccl|oneshot))?$)");
  static const std::regex ablated(R"(^/ablation/(mpi|nccl|oneshot)(/(sweep|sweep_allgather|step|prereg)(/.*)?)$)");
  if (is_group && std::regex_match(path, ablation)) return true;
  std::smatch below;
  if (std::regex_match(path, below, ablated)) return schema_names(below[2].str(), is_group);
  // Groups: every prefix of a dataset path below, plus the attribute-only groups.
  static const std::regex groups(
      R"(^/(meta|config|study|prereg|membw|d2d|control|control/(concurrent|alone)|control/(concurrent|alone)/b[0-9]+_c[0-9]+)"
      R"(|(step|step_nocomm|step_graph|step_graph_nocomm|replay)(/k[0-9]+(/b[0-9]+_c[0-9]+(/phase)?)?)?)"
      R"(|(sweep|sweep_allgather)(/k[0-9]+)?|verdict(/[a-z_]+(/k[0-9]+)?)?)"
      R"(|(rounds|calibration_rounds)(/visits|/(step|step_nocomm|replay)(/k[0-9]+(/b[0-9]+_c[0-9]+)?)?)?)"
      R"(|kv(/blocks(/b[0-9]+)?|/tp(/k[0-9]+)?)?|decision(/k[0-9]+(/b[0-9]+_c[0-9]+)?|/slo(/c[0-9]+)?)?)$)");
  static const std::regex datasets(
      R"(^/(prereg/predictions_json|membw/read_GBps|d2d/copy_GBps)"
      R"(|control/(concurrent|alone)/b[0-9]+_c[0-9]+/t_rank_us)"
      R"(|(step|step_nocomm|step_graph|step_graph_nocomm|replay)/k[0-9]+/b[0-9]+_c[0-9]+/)"
      R"((t_step_us|t_rank_us|t_host_us|t_ar_insitu_us|t_ag_insitu_us|tp_group|experts_touched|phase/[a-z_]+_us))"
      R"(|(sweep|sweep_allgather)/k[0-9]+/(bytes|count|time_us|time_inplace_us|time_median_us|time_inplace_median_us)"
      R"(|algbw_GBps|busbw_GBps|algbw_inplace_GBps|busbw_inplace_GBps|wrong|wrong_inplace|wrong_per_rank)"
      R"(|wrong_inplace_per_rank|slowest_group|slowest_group_inplace))"
      R"(|verdict/[a-z_]+/k[0-9]+/(batch|context|predicted_t_step_us|measured_t_step_us|measured_ci_low_us)"
      R"(|measured_ci_high_us|signed_error_pct|localizing_term))"
      R"(|(rounds|calibration_rounds)/(order|block_of_condition))"
      R"(|(rounds|calibration_rounds)/visits/(condition|round|execution_index|start_unix_us|duration_us|steal_pct)"
      R"(|load_avg_1m))"
      R"(|(rounds|calibration_rounds)/(step|step_nocomm|replay)/k[0-9]+/b[0-9]+_c[0-9]+/)"
      R"((t_rank_us|t_host_us|t_collective_insitu_us))"
      R"(|kv/(lengths|contexts|block_tokens)|kv/tp/k[0-9]+/admissible_sequences)"
      R"(|kv/blocks/b[0-9]+/(tokens|payload_bytes|allocated_bytes|tail_waste_bytes|table_entries))"
      R"(|decision/k[0-9]+/(contexts|max_batch))$)");
  return std::regex_match(path, is_group ? groups : datasets);
}

}  // namespace tpb
