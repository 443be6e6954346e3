// register: predictions from calibration data only, written and sealed
// before any TP-k step runs.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "mpi_bench/pipeline/calibrated_cell.hpp"
#include "mpi_bench/pipeline/modelled_degrees.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/roofline_calibration.hpp"
#include "mpi_bench/pipeline/transfer_calibration.hpp"
#include "predictor/sha256.hpp"
#include "predictor/round_evaluation.hpp"
#include "results/calibration_spread.hpp"
#include "results/decision_file.hpp"
#include "results/round_records.hpp"
#include "tpb_version.hpp"

namespace tpb {
namespace {

// The rounds design calibration declared in /study, with the kill switch:
// sealed from here on.
RoundsDesign declared_design(const H5File& file, double kill_switch_pct, std::uint64_t seed) {
  const StudyDesign study = read_study_design(file);
  return make_rounds_design(study.rounds, study.time_budget_s, seed, kill_switch_pct);
}

// What the declared rounds can resolve at the calibration's spread, said
// before measuring; N stays as declared. Without a spread (fewer than 3
// calibration rounds) there is no plan.
void plan_design_rounds(const H5File& file, const Registration& r, RoundsDesign& design) {
  const CalibrationSpread spread = read_calibration_spread(file, r.grid);
  if (spread.cell_log_sd.empty()) return;
  RoundPlanInputs in;
  in.cell_log_sd = spread.cell_log_sd;
  in.rule = design.rule;
  in.rounds = design.rounds;
  in.family_cells = form_family_cells(r.grid);
  in.seconds_per_round = spread.seconds_per_visit * static_cast<double>(round_conditions(r.grid).size());
  in.time_budget_s = design.time_budget_s;
  design.plan = plan_rounds(in);
}

}  // namespace

void write_text_file(const std::string& path, const std::string& text, std::string_view option) {
  const std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  std::error_code error;
  if (out) std::filesystem::rename(temporary, path, error);
  if (!out || error) {
    std::filesystem::remove(temporary, error);
    throw UsageError(fmt::format("{}: cannot write '{}'", option, path));
  }
}

std::string write_sealed_text(const std::string& dir, const std::string& name, const std::string& text,
                              std::string_view option) {
  const std::string sha256 = sha256_hex(text);
  const std::string path = (std::filesystem::path(dir) / name).string();
  write_text_file(path, text, option);
  write_text_file(path + ".sha256", fmt::format("{}  {}\n", sha256, name), option);
  return sha256;
}

std::string planned_rounds_line(const PreregRecord& record) {
  const Registration r = parse_registration(record.text);
  if (!r.design.plan) return "";
  return round_plan_line(*r.design.plan);
}

PreregRecord register_stage(H5File& file, double kill_switch_pct, const std::string& predictions_dir,
                            const std::string& transfer_from, const std::string& campaign_sha256,
                            const std::vector<OutsideForm>& outside_forms) {
  if (has_prereg(file))
    throw UsageError(fmt::format("FILE: '{}' is already registered (/prereg exists): a study registers once; "
                                 "calibrate into a new file to register again",
                                 file.path()));
  Registration r;
  read_study_declaration(file, &r.workload, &r.grid);
  if (!transfer_from.empty()) r.transfer = calibrate_transfer(file, r, transfer_from);
  r.roofline = read_roofline_ceilings(file);
  r.kill_switches = kill_switch_table(kill_switch_pct, r.transfer.has_value(), r.roofline.has_value());
  for (const OutsideForm& form : outside_forms) r.kill_switches.push_back({form.name, kill_switch_pct});
  r.tool_version = TPB_TOOL_VERSION;
  r.source.results_file = file.path();

  const Workload& w = r.workload;
  const std::optional<LedgerModel> model =
      r.roofline ? std::optional<LedgerModel>(read_ledger_model(file, w)) : std::nullopt;
  for (int k : r.grid.tp)
    for (int b : r.grid.batch)
      for (int c : r.grid.context) {
        const std::string nocomm = step_point_path(StepRoot::step_nocomm, 1, b, c);
        const std::string replay = step_point_path(StepRoot::replay, k, b, c);
        CellInputs cell = calibrated_cell(file, w, k, b, c, [&](SweepRoot root, double bytes) {
          return sweep_fit(file, root, k).predict_us(bytes);
        });
        if (r.transfer) cell.inputs.t_transfer_us = find_transfer_cell(*r.transfer, k, b, c).compute_us();
        if (model)  // the shard replay's routing, as the step it prices
          cell.inputs.t_roofline_us = roofline_compute_us(
              phase_ledger(model->config, k, b, c, model->types, false, experts_touched(file, replay, model->config)),
              *r.roofline);
        r.calibration.push_back(cell);
        if (k == r.grid.tp.front()) r.source.datasets.push_back(step_dataset_path(nocomm, step_dataset::t_step_us));
        r.source.datasets.push_back(step_dataset_path(replay, step_dataset::t_step_us));
        r.source.datasets.push_back(step_dataset_path(replay, step_dataset::t_host_us));
      }
  for (const SweepRoot root : {SweepRoot::all_reduce, SweepRoot::all_gather})
    for (int k : collective_degrees(r.grid.tp)) {
      r.source.datasets.push_back(sweep_dataset_path(root, k, "bytes"));
      r.source.datasets.push_back(sweep_dataset_path(root, k, "time_us"));
    }
  r.decision = read_decision_declaration(file);
  r.modelled_degrees = register_modelled_degrees(file, r);
  r.source.datasets_sha256 = datasets_sha256(file, r.source.datasets);
  r.predictions = predict_all(r.calibration, registered_forms(r));
  r.outside_forms = outside_forms;
  for (const OutsideForm& form : outside_forms)
    for (const CellPrediction& p : outside_form_predictions(form)) r.predictions.push_back(p);
  r.design = declared_design(file, kill_switch_pct, r.workload.bootstrap_seed);
  plan_design_rounds(file, r, r.design);
  r.falsification_rule = decision_rule_text(r.design.rule);
  r.registered_at = utc_timestamp_us();
  if (!campaign_sha256.empty()) r.campaign_sha256 = campaign_sha256;

  PreregRecord record{registration_json(r), "", r.registered_at};
  std::filesystem::create_directories(predictions_dir);
  record.sha256 = write_sealed_text(predictions_dir, "predictions.json", record.text);
  write_prereg(file, record);
  return record;
}

}  // namespace tpb
