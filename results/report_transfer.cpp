#include "results/report_transfer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "common/samples.hpp"
#include "predictor/statistics.hpp"
#include "results/layout.hpp"
#include "results/round_records.hpp"

namespace tpb {
namespace {

// Per cell, the measured t_step the verdict judges: the median over rounds of
// each round's median (a study in rounds), else the median of the point.
std::map<DegreeCell, double> measured_medians(const H5File& file, const Registration& r,
                                              const std::vector<MeasuredCell>& measured) {
  std::map<DegreeCell, double> out;
  if (has_rounds(file)) {
    std::map<DegreeCell, std::vector<double>> per_round;
    for (const RoundObservation& round : read_round_observations(file, r.grid))
      for (const auto& [cell, us] : round.step_us) per_round[cell].push_back(us);
    for (auto& [cell, values] : per_round) out[cell] = median(values);
    return out;
  }
  for (const MeasuredCell& m : measured) out[{m.k, m.batch, m.context}] = median(m.t_step_us);
  return out;
}

std::string fit_table(const TransferSource& t) {
  std::string s = "| class | α (µs per interval) | β (GB/s) | γ (GFLOP/s) | R² | points | largest |residual| |\n"
                  "|---|---|---|---|---|---|---|\n";
  for (const PhaseClassFit& c : t.fit.classes) {
    double worst = 0;
    for (double r : c.residual_us) worst = std::max(worst, std::abs(r));
    s += fmt::format("| {} | {:.3f} | {:.2f} | {} | {:.4f} | {} | {:.1f} µs |\n", to_string(c.phase_class),
                     c.alpha_us, c.beta_GBps,
                     c.gamma_identified ? fmt::format("{:.1f}", c.gamma_GFLOPs) : "unidentified (bandwidth-bound)",
                     c.r2, c.points.size(), worst);
  }
  return s;
}

// The phase of the cell whose A-calibrated price departs most from this
// study's own replay of the same shard; empty when the replay has no phases.
std::string localizer(const H5File& file, const TransferCell& cell) {
  const std::string point = step_point_path(StepRoot::replay, cell.k, cell.batch, cell.context);
  std::string worst;
  double worst_us = -1, predicted = 0, replayed = 0;
  for (const auto& [phase, us] : cell.phase_us) {
    const std::string path = phase_dataset_path(point, phase);
    if (!file.exists(path)) continue;
    const double measured_us = median(file.read_doubles(path));
    if (std::abs(measured_us - us) > worst_us) {
      worst_us = std::abs(measured_us - us);
      worst = phase;
      predicted = us;
      replayed = measured_us;
    }
  }
  if (worst.empty()) return "not measured";
  return fmt::format("`{}` ({:.0f} predicted, {:.0f} replayed µs)", worst, predicted, replayed);
}

// A mixture-of-experts B: the prediction at the distinct experts its router
// chose (the sealed `transfer`) and at the count uniform routing gives
// (MODELLED), each against the measurement.
std::string experts_table(const Registration& r, const TransferSource& t,
                          const std::map<DegreeCell, double>& measured_us) {
  std::string s;
  for (const TransferCell& cell : t.cells) {
    if (!cell.experts) continue;
    if (s.empty())
      s = "Distinct experts read per layer: the `transfer` prediction above prices the experts the router chose at "
          "this study's replay of the cell (recorded); beside it, the count uniform routing would give, "
          "E·(1 − (1 − top/E)^b), is MODELLED, not measured.\n\n"
          "| k | b | c | experts per layer: recorded | MODELLED | `transfer` at recorded (µs) | at MODELLED (µs) | "
          "measured (µs) | error at MODELLED |\n|---|---|---|---|---|---|---|---|---|\n";
    const double recorded_us =
        find_prediction(r.predictions, "transfer", cell.k, cell.batch, cell.context).prediction.t_step_us;
    const double modelled_us = recorded_us - cell.compute_us() + cell.experts->modelled_compute_us;
    const auto m = measured_us.find(DegreeCell{cell.k, cell.batch, cell.context});
    s += fmt::format("| {} | {} | {} | {:.2f} | {:.2f} (MODELLED) | {:.0f} | {:.0f} | {} | {} |\n", cell.k, cell.batch,
                     cell.context, cell.experts->recorded_per_layer, cell.experts->modelled_per_layer, recorded_us,
                     modelled_us, m == measured_us.end() ? "not measured" : fmt::format("{:.0f}", m->second),
                     m == measured_us.end() ? "—" : fmt::format("{:+.1f} %", (m->second / modelled_us - 1) * 100));
  }
  return s.empty() ? s : s + "\n";
}

}  // namespace

std::string transfer_section(const H5File& file, const Registration& r, const std::vector<MeasuredCell>& measured) {
  if (!r.transfer) return "";
  const TransferSource& t = *r.transfer;
  std::string s = fmt::format(
      "## Transfer: calibrated on `{}`\n\n"
      "`transfer` prices this model's TP-k shard phase by phase with the costs fitted on another model's study, "
      "and adds this study's own collective terms. It was sealed at registration and is judged on that sealed "
      "prediction only: no round re-measures its compute, so the drift gate has nothing to compare it with. Its "
      "verdict is in the decision above, beside the forms calibrated on this study.\n\n"
      "- source `{}`, {}; its grid: batch {{{}}}, context {{{}}}\n"
      "- the fit read {} phase datasets, SHA-256 `{}`; the fit's own SHA-256 `{}`\n\n",
      t.model, t.results_file, describe(t.machine), fmt::join(t.batch, ", "), fmt::join(t.context, ", "),
      t.datasets.size(), t.datasets_sha256, t.fit_sha256);
  s += fit_table(t);
  s += "\nPer phase class: t = intervals·α + max(bytes/β, flops/γ), weighted least squares (1/t²); γ is "
       "unidentified where no calibrated point was compute-bound, and the class is then priced by bytes alone.\n\n";
  const std::map<DegreeCell, double> measured_us = measured_medians(file, r, measured);
  s += "| k | b | c | calibrated on A: `transfer` (µs) | measured (µs) | error | largest phase residual | "
       "calibrated on B: `ideal` (µs) | error |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const TransferCell& cell : t.cells) {
    const DegreeCell key{cell.k, cell.batch, cell.context};
    const double transfer_us =
        find_prediction(r.predictions, "transfer", cell.k, cell.batch, cell.context).prediction.t_step_us;
    const double ideal_us =
        find_prediction(r.predictions, "ideal", cell.k, cell.batch, cell.context).prediction.t_step_us;
    const auto m = measured_us.find(key);
    const std::string measured_text = m == measured_us.end() ? "not measured" : fmt::format("{:.0f}", m->second);
    const auto error = [&](double predicted) {
      return m == measured_us.end() ? std::string("—") : fmt::format("{:+.1f} %", (m->second / predicted - 1) * 100);
    };
    s += fmt::format("| {} | {} | {} | {:.0f} | {} | {} | {} | {:.0f} | {} |\n", cell.k, cell.batch, cell.context,
                     transfer_us, measured_text, error(transfer_us), localizer(file, cell), ideal_us, error(ideal_us));
  }
  s += "\nError: measured / predicted − 1 per cell (the verdict's cell error). Largest phase residual: the phase "
       "of the cell's shard whose price (calibrated on A) departs most from this study's own measured shard replay "
       "of it.\n\n";
  s += experts_table(r, t, measured_us);
  return s;
}

}  // namespace tpb
