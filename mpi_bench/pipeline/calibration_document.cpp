#include "mpi_bench/pipeline/calibration_document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "common/choices.hpp"
#include "common/error.hpp"
#include "common/samples.hpp"
#include "mpi_bench/pipeline/calibrated_cell.hpp"
#include "mpi_bench/pipeline/study_runtime.hpp"
#include "results/decision_file.hpp"
#include "results/environment_file.hpp"
#include "results/probe_file.hpp"
#include "results/study_file.hpp"
#include "tp_decoder/memory_estimate.hpp"
#include "mpi_bench/pipeline/transfer_calibration.hpp"
#include "tp_decoder/phase_ledger.hpp"

namespace tpb {
namespace {

using json = nlohmann::ordered_json;  // fields in the order docs/CALIBRATION.md tables them

// What was not measured is null, never 0 or NaN.
json calibration_finite_or_null(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

// The median over every value of a dataset (passes or iterations × ranks), or null without it.
json calibration_median_or_null(const H5File& file, const std::string& path) {
  if (!file.exists(path)) return nullptr;
  return median(file.read_doubles(path));
}

const char* calibration_sweep_operation(SweepRoot root) {
  return root == SweepRoot::all_reduce ? "all_reduce" : "all_gather";
}

// The calibrated study as register reads it: its workload, grid, model and the
// degrees whose shards the calibration replayed (the grid's and --predict-tp's).
struct CalibratedStudyFile {
  Workload workload;
  Grid grid;
  std::vector<int> predict_tp;
  LedgerModel model;  // the layers run
  StudyDesign design;
};

// Every dataset the document reads, so that a calibration not yet finished is
// named in one line before anything is read.
void require_calibrated(const H5File& file, const CalibratedStudyFile& s) {
  std::vector<std::string> needed = {kMetaGroup, kConfigGroup};
  for (int b : s.grid.batch)
    for (int c : s.grid.context) {
      needed.push_back(step_dataset_path(step_point_path(StepRoot::step_nocomm, 1, b, c), step_dataset::t_step_us));
      for (int k : s.grid.tp) needed.push_back(step_point_path(StepRoot::replay, k, b, c));
      for (int k : s.predict_tp) needed.push_back(step_point_path(StepRoot::replay, k, b, c));
    }
  for (int k : collective_degrees(s.grid.tp))
    for (SweepRoot root : {SweepRoot::all_reduce, SweepRoot::all_gather}) needed.push_back(sweep_group_path(root, k));
  for (const std::string& path : needed)
    if (!file.exists(path))
      throw UsageError(fmt::format("FILE: '{}' is not calibrated yet (no {}): run or finish 'mpi_bench calibrate'",
                                   file.path(), path));
}

CalibratedStudyFile read_calibrated_study_file(const H5File& file) {
  CalibratedStudyFile s;
  read_study_declaration(file, &s.workload, &s.grid);  // UsageError when /study is missing
  s.predict_tp = read_decision_declaration(file).predict_tp;
  require_calibrated(file, s);
  s.model = read_ledger_model(file, s.workload);
  s.design = read_study_design(file);
  return s;
}

json machine_section(const H5File& file, const CalibratedStudyFile& s) {
  H5Handle meta = file.open_object(kMetaGroup);
  const std::optional<HostCpu> cpu = read_host_cpu(file);
  json rank_map = json::array();
  std::set<std::string> devices;
  for (const std::string& row : read_string_list_attribute(meta.id(), "rank_map")) {
    rank_map.push_back(json::parse(row));
    devices.insert(rank_map.back().value("device", ""));
  }
  return {{"cpu_model", cpu ? json(cpu->model) : json(nullptr)},
          {"cpu_cores", cpu ? json(cpu->cores) : json(nullptr)},
          {"devices", devices},
          {"backend", s.workload.backend},
          {"collective", s.design.collective},
          {"ranks", rank_map.size()},
          {"hostnames", read_string_list_attribute(meta.id(), "hostnames")},
          {"rank_map", rank_map}};
}

json model_section(const CalibratedStudyFile& s) {
  return {{"name", s.workload.model},
          {"layers", s.workload.layers},
          {"layers_in_file", s.model.config.num_layers_in_file},
          {"hidden_size", s.workload.hidden_size},
          {"vocab_size", s.workload.vocab_size},
          {"bytes_per_element", s.workload.bytes_per_element},
          {"dtypes",
           {{"weight", to_string(s.model.types.weight)},
            {"kv_cache", to_string(s.model.types.kv_cache)},
            {"activation", to_string(s.model.types.activation)},
            {"logits", to_string(s.model.types.logits)}}},
          {"mixture_of_experts", s.model.config.is_moe()},
          {"config_sha256", s.workload.config_sha256}};
}

// /membw, /d2d and /gemm, each the median over passes and ranks; null where the file has none.
json bandwidth_section(const H5File& file) {
  json out = {{"read_GBps", calibration_median_or_null(file, kMembwReadGBps)},
              {"threads", nullptr},
              {"fma_peak_GFLOPs_per_thread", nullptr},
              {"compute_peak_GFLOPs", nullptr},
              {"d2d_copy_GBps", calibration_median_or_null(file, kD2dCopyGBps)},
              {"gemm_peak_GFLOPs", calibration_median_or_null(file, kGemmRateGFLOPs)},
              {"gemm_shape", nullptr}};
  if (const std::optional<GemmRateRecord> gemm = read_gemm_rate(file))
    out["gemm_shape"] = {{"m", gemm->shape.m}, {"n", gemm->shape.n}, {"k", gemm->shape.k}, {"types", gemm->shape.types}};
  if (const std::optional<MembwRecord> membw = read_membw(file)) {
    out["threads"] = membw->threads;
    out["fma_peak_GFLOPs_per_thread"] = membw->fma_peak_GFLOPs;
    out["compute_peak_GFLOPs"] = membw->fma_peak_GFLOPs * static_cast<double>(membw->threads);
  }
  return out;
}

// One sweep group's fits, as the calibration stored them in its attributes.
json sweep_fits(const H5File& file, SweepRoot root, int k) {
  H5Handle group = file.open_object(sweep_group_path(root, k));
  const hid_t id = group.id();
  json out = {{"operation", calibration_sweep_operation(root)},
              {"k", k},
              {"collective", read_string_attribute(id, "collective")}};
  if (has_attribute(id, "fit_skipped")) {
    out["fit_skipped"] = read_string_attribute(id, "fit_skipped");
    return out;
  }
  // β is +inf where the fitted slope is <= 0: null, the segment flat (t = α).
  out["fit"] = {{"alpha_us", read_double_attribute(id, "fit_alpha_us")},
                {"beta_GBps", calibration_finite_or_null(read_double_attribute(id, "fit_beta_GBps"))},
                {"r2", read_double_attribute(id, "fit_r2")}};
  const std::vector<double> alpha = read_double_list_attribute(id, "piecewise_alpha_us");
  const std::vector<double> beta = read_double_list_attribute(id, "piecewise_beta_GBps");
  const std::vector<double> r2 = read_double_list_attribute(id, "piecewise_r2");
  const std::vector<double> lo = read_double_list_attribute(id, "piecewise_min_bytes");
  const std::vector<double> hi = read_double_list_attribute(id, "piecewise_max_bytes");
  json segments = json::array();
  for (std::size_t i = 0; i < alpha.size(); ++i)
    segments.push_back({{"alpha_us", alpha[i]}, {"beta_GBps", calibration_finite_or_null(beta[i])}, {"r2", r2[i]},
                        {"min_bytes", lo[i]}, {"max_bytes", hi[i]}});
  out["segments"] = segments;
  out["breakpoints_bytes"] = read_double_list_attribute(id, "piecewise_breakpoints_bytes");
  out["total_r2"] = read_double_attribute(id, "piecewise_total_r2");
  return out;
}

json phase_cost_json(const PhaseCost& cost) {
  return {{"intervals", cost.intervals}, {"bytes_read", cost.bytes_read}, {"bytes_written", cost.bytes_written},
          {"flops", cost.flops}, {"weight_bytes_read", cost.weight_bytes_read}};
}

// One rank of the TP-k step of the cell, its collectives included (k > 1).
json ledger_json(const PhaseLedger& l) {
  json phases = json::object();
  for (const auto& [phase, name] : kPhases)
    if (l[phase].intervals > 0) phases[name] = phase_cost_json(l[phase]);
  return {{"phases", phases},
          {"weight_bytes_per_step", l.weight_bytes_per_step()},
          {"collectives",
           {{"ar_bytes", l.collectives.ar_bytes}, {"n_ar", l.collectives.n_ar},
            {"ag_bytes", l.collectives.ag_bytes}, {"n_ag", l.collectives.n_ag}}}};
}

// The median µs (summed over layers per iteration; over iterations and ranks)
// of every phase the point timed and its shard's step books: a calibration
// point ran without collectives, and a timeline stores every phase, 0 where
// none ran.
json measured_phase_medians(const H5File& file, const std::string& point, const PhaseLedger& shard) {
  json out = json::object();
  for (const auto& [phase, name] : kPhases) {
    const std::string path = phase_dataset_path(point, name);
    const bool collective = phase == Phase::all_reduce || phase == Phase::all_gather;
    if (shard[phase].intervals > 0 && !collective && file.exists(path)) out[name] = median(file.read_doubles(path));
  }
  return out;
}

json calibrated_cell_json(const H5File& file, const CalibratedStudyFile& s, int k, int batch, int context) {
  const bool in_grid = std::find(s.grid.tp.begin(), s.grid.tp.end(), k) != s.grid.tp.end();
  // The registration's own collective term: the piecewise fit of the sweep's
  // medians at the payload; a --predict-tp degree was not swept.
  const auto collective_us = [&](SweepRoot root, double bytes) {
    return in_grid ? sweep_fit(file, root, k).predict_us(bytes) : std::nan("");
  };
  const CellInputs inputs = calibrated_cell(file, s.workload, k, batch, context, collective_us);
  const std::string replay = step_point_path(StepRoot::replay, k, batch, context);
  const std::string nocomm = step_point_path(StepRoot::step_nocomm, 1, batch, context);
  const PhaseLedger l = phase_ledger(s.model.config, k, batch, context, s.model.types, k > 1,
                                     experts_touched(file, replay, s.model.config));
  return {{"k", k},
          {"batch", batch},
          {"context", context},
          {"in_grid", in_grid},
          {"anchors",
           {{"t_compute1_us", inputs.inputs.t_compute1_us},
            {"t_replay_us", inputs.inputs.t_replay_us},
            {"t_host_us", inputs.inputs.t_host_us}}},
          {"collective_terms",
           {{"t_ar_sweep_us", calibration_finite_or_null(inputs.inputs.t_ar_sweep_us)},
            {"t_ag_sweep_us", calibration_finite_or_null(inputs.inputs.t_ag_sweep_us)}}},
          {"phases_us",
           {{"replay", measured_phase_medians(file, replay, l)},
            {"tp1_nocomm", measured_phase_medians(file, nocomm, l)}}},
          {"ledger", ledger_json(l)}};
}

}  // namespace

nlohmann::ordered_json calibration_document(const H5File& file) {
  const CalibratedStudyFile s = read_calibrated_study_file(file);
  H5Handle meta = file.open_object(kMetaGroup);
  json sweeps = json::array();
  for (int k : collective_degrees(s.grid.tp))
    for (SweepRoot root : {SweepRoot::all_reduce, SweepRoot::all_gather}) sweeps.push_back(sweep_fits(file, root, k));
  std::set<int> degrees(s.grid.tp.begin(), s.grid.tp.end());
  degrees.insert(s.predict_tp.begin(), s.predict_tp.end());
  json cells = json::array();
  for (int k : degrees)
    for (int b : s.grid.batch)
      for (int c : s.grid.context) cells.push_back(calibrated_cell_json(file, s, k, b, c));
  return {{"schema", kCalibrationSchema},
          {"schema_version", kCalibrationSchemaVersion},
          {"source",
           {{"file", file.path()},
            {"tool_version", read_string_attribute(meta.id(), "tool_version")},
            {"git_sha", read_string_attribute(meta.id(), "git_sha")},
            {"calibrated_at", s.design.calibrated_at}}},
          {"machine", machine_section(file, s)},
          {"model", model_section(s)},
          {"grid",
           {{"tp", s.grid.tp}, {"batch", s.grid.batch}, {"context", s.grid.context}, {"predict_tp", s.predict_tp}}},
          {"bandwidth", bandwidth_section(file)},
          {"sweeps", sweeps},
          {"cells", cells}};
}

}  // namespace tpb
