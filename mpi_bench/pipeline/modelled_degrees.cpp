#include "mpi_bench/pipeline/modelled_degrees.hpp"

#include "predictor/collective_extrapolation.hpp"
#include "predictor/piecewise_fit.hpp"
#include "results/layout.hpp"
#include "results/study_file.hpp"

namespace tpb {
namespace {

PiecewiseFit sweep_fit(const H5File& file, SweepRoot root, int k) {
  const SweepMedians sweep = read_sweep_medians(file, root, k);
  return fit_piecewise(sweep.bytes, sweep.time_us);
}

}  // namespace

std::vector<ModelledDegree> register_modelled_degrees(const H5File& file, Registration& r) {
  std::vector<ModelledDegree> degrees;
  const Workload& w = r.workload;
  for (int k : r.decision.predict_tp) {
    const int km = nearest_measured_degree(r.grid.tp, k);
    const PiecewiseFit all_reduce = sweep_fit(file, SweepRoot::all_reduce, km);
    const PiecewiseFit all_gather = sweep_fit(file, SweepRoot::all_gather, km);
    ModelledDegree degree{k, collective_model_name(r.grid.tp, k), {}, {}};
    for (int b : r.grid.batch)
      for (int c : r.grid.context) {
        const std::string nocomm = step_point_path(StepRoot::step_nocomm, 1, b, c);
        const std::string replay = step_point_path(StepRoot::replay, k, b, c);
        CellInputs cell;
        cell.batch = b;
        cell.context = c;
        cell.ar_bytes = static_cast<std::int64_t>(b) * w.hidden_size * w.bytes_per_element;
        cell.ag_bytes = static_cast<std::int64_t>(b) * w.vocab_size * w.bytes_per_element;
        cell.inputs = {.k = k,
                       .t_compute1_us = slowest_rank_median(file, nocomm, step_dataset::t_step_us),
                       .t_host_us = slowest_rank_median(file, replay, step_dataset::t_host_us),
                       .t_replay_us = slowest_rank_median(file, replay, step_dataset::t_step_us),
                       .n_ar = 2 * w.layers,
                       .t_ar_sweep_us = ring_scaled_us(all_reduce, km, k, static_cast<double>(cell.ar_bytes)),
                       .n_ag = 1,
                       .t_ag_sweep_us = ring_scaled_us(all_gather, km, k, static_cast<double>(cell.ag_bytes))};
        degree.calibration.push_back(cell);
        r.source.datasets.push_back(step_dataset_path(replay, step_dataset::t_step_us));
        r.source.datasets.push_back(step_dataset_path(replay, step_dataset::t_host_us));
      }
    degree.predictions = predict_all(degree.calibration);
    degrees.push_back(degree);
  }
  return degrees;
}

}  // namespace tpb
