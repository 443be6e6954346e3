#include "results/report_ablation.hpp"

#include <fmt/format.h>

#include <optional>
#include <string_view>

#include "common/choices.hpp"
#include "predictor/form_applicability.hpp"
#include "predictor/statistics.hpp"
#include "results/ablation_file.hpp"
#include "results/layout.hpp"
#include "results/study_file.hpp"

namespace tpb {
namespace {

// Grid means over (b, c) at one k: the predicted collective term, the
// measured in-situ collective time (absent when any cell lacks it) and the
// measured median t_step.
struct DegreeTerms {
  double predicted_collective_us = 0;
  std::optional<double> measured_collective_us;
  double t_step_us = 0;
};

DegreeTerms degree_terms(const Registration& r, const std::vector<MeasuredCell>& measured, int k) {
  DegreeTerms t;
  double collective_sum = 0;
  int cells = 0;
  bool collective_everywhere = true;
  for (const CellInputs& cell : r.calibration) {
    if (cell.inputs.k != k) continue;
    t.predicted_collective_us +=
        cell.inputs.n_ar * cell.inputs.t_ar_sweep_us + cell.inputs.n_ag * cell.inputs.t_ag_sweep_us;
    ++cells;
  }
  if (cells > 0) t.predicted_collective_us /= cells;
  int measured_cells = 0;
  for (const MeasuredCell& cell : measured) {
    if (cell.k != k) continue;
    t.t_step_us += median(cell.t_step_us);
    if (cell.collective_us)
      collective_sum += *cell.collective_us;
    else
      collective_everywhere = false;
    ++measured_cells;
  }
  if (measured_cells > 0) {
    t.t_step_us /= measured_cells;
    if (collective_everywhere) t.measured_collective_us = collective_sum / measured_cells;
  }
  return t;
}

std::string us_or_not_measured(const std::optional<double>& value) {
  return value ? fmt::format("{:.1f}", *value) : std::string("not measured");
}

const FormDegreeResult* find_result(const std::vector<FormDegreeResult>& results, const std::string& form, int k) {
  for (const auto& r : results)
    if (r.judgement.form == form && r.judgement.k == k) return &r;
  return nullptr;
}

std::string ablation_section(const H5File& file, std::string_view own, std::string_view other,
                             const Registration& study, const std::vector<FormDegreeResult>& study_results,
                             const std::vector<MeasuredCell>& study_measured) {
  const Registration ablation = checked_ablation_registration(file, other);
  const std::string root = ablation_root_path(other);
  const std::vector<MeasuredCell> measured = read_measured_cells(file, ablation.grid, root);
  const std::vector<FormDegreeResult> results = evaluate_study(ablation, measured, registered_bootstrap(ablation));

  std::string s = fmt::format("## Collective ablation: {} in place of {}\n\n", other, own);
  s += fmt::format(
      "The TP-k steps ran again with the `{0}` collective after the study's own measurement, predicted by the same "
      "forms from `{0}`'s own sweeps (`{1}/sweep*`) with every other calibrated input unchanged, and registered "
      "before its first step (`{1}/prereg`, sha256 `{2}`). Its steps are `{1}/step/k*/b*_c*`; the compute term is "
      "the study's own `--no-comm` ablation, which runs no collective. Grid means over (b, c), µs; measured at "
      "another time than the study's own steps, so the difference also holds any drift in between.\n\n",
      other, root, read_ablation_prereg(file, other).sha256.substr(0, 16));
  s += fmt::format("| k | collective predicted, {0} | collective predicted, {1} | collective in situ, {0} | "
                   "collective in situ, {1} | t_step, {0} | t_step, {1} | t_step removed by {1} |\n",
                   own, other);
  s += "|---|---|---|---|---|---|---|---|\n";
  for (int k : ablation.grid.tp) {
    const DegreeTerms a = degree_terms(study, study_measured, k);
    const DegreeTerms b = degree_terms(ablation, measured, k);
    const double removed = a.t_step_us - b.t_step_us;
    s += fmt::format("| {} | {:.1f} | {:.1f} | {} | {} | {:.1f} | {:.1f} | {:+.1f} ({:+.1f} %) |\n", k,
                     a.predicted_collective_us, b.predicted_collective_us, us_or_not_measured(a.measured_collective_us),
                     us_or_not_measured(b.measured_collective_us), a.t_step_us, b.t_step_us, removed,
                     a.t_step_us > 0 ? 100.0 * removed / a.t_step_us : 0.0);
  }
  // The ablation runs one pass, which no verdict rule judges: its forms are
  // described by the single-pass MAPE of each implementation, without a
  // verdict, and only where the backend measures every term a form uses.
  const BackendKind backend = parse_backend_kind("study backend", study.workload.backend);
  s += fmt::format("\nOne pass each, descriptive (no verdict: the study decides only over rounds):\n\n| form | k | "
                   "MAPE {0} (%) | MAPE {1} (%) | change (points) |\n",
                   own, other);
  s += "|---|---|---|---|---|\n";
  for (const auto& r : results) {
    const FormDegreeResult* base = find_result(study_results, r.judgement.form, r.judgement.k);
    if (base == nullptr) continue;
    if (!not_applicable_reason(r.judgement.form, backend).empty()) {
      s += fmt::format("| {} | {} | NOT_APPLICABLE | NOT_APPLICABLE | — |\n", r.judgement.form, r.judgement.k);
      continue;
    }
    s += fmt::format("| {} | {} | {:.2f} | {:.2f} | {:+.2f} |\n", r.judgement.form, r.judgement.k,
                     base->judgement.mape_pct, r.judgement.mape_pct, r.judgement.mape_pct - base->judgement.mape_pct);
  }
  return s + "\n";
}

}  // namespace

std::string ablation_sections(const H5File& file, const Registration& study,
                              const std::vector<FormDegreeResult>& study_results,
                              const std::vector<MeasuredCell>& study_measured) {
  std::string s;
  for (const CollectiveKind kind : {CollectiveKind::mpi, CollectiveKind::nccl, CollectiveKind::oneshot})
    if (has_ablation(file, to_string(kind))) {
      const std::string own = read_study_design(file).collective;
      s += ablation_section(file, own.empty() ? "the study's collective" : own, to_string(kind), study, study_results,
                            study_measured);
    }
  return s;
}

}  // namespace tpb
