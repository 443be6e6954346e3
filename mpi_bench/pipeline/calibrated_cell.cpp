#include "mpi_bench/pipeline/calibrated_cell.hpp"

#include <string>

#include "results/study_file.hpp"

namespace tpb {

PiecewiseFit sweep_fit(const H5File& file, SweepRoot root, int k, std::string_view under) {
  const SweepMedians sweep = read_sweep_medians(file, root, k, under);
  return fit_piecewise(sweep.bytes, sweep.time_us);
}

CellInputs calibrated_cell(const H5File& file, const Workload& w, int k, int batch, int context,
                           const CollectiveTermUs& collective_us) {
  const std::string nocomm = step_point_path(StepRoot::step_nocomm, 1, batch, context);
  const std::string replay = step_point_path(StepRoot::replay, k, batch, context);
  CellInputs cell;
  cell.batch = batch;
  cell.context = context;
  cell.ar_bytes = static_cast<std::int64_t>(batch) * w.hidden_size * w.bytes_per_element;
  cell.ag_bytes = static_cast<std::int64_t>(batch) * w.vocab_size * w.bytes_per_element;
  // A group of one rank issues no collective: k = 1 carries no collective term.
  const bool collectives = k > 1;
  cell.inputs = {.k = k,
                 .t_compute1_us = slowest_rank_median(file, nocomm, step_dataset::t_step_us),
                 .t_host_us = slowest_rank_median(file, replay, step_dataset::t_host_us),
                 .t_replay_us = slowest_rank_median(file, replay, step_dataset::t_step_us),
                 .n_ar = collectives ? 2 * w.layers : 0,
                 .t_ar_sweep_us =
                     collectives ? collective_us(SweepRoot::all_reduce, static_cast<double>(cell.ar_bytes)) : 0.0,
                 .n_ag = collectives ? 1 : 0,
                 .t_ag_sweep_us =
                     collectives ? collective_us(SweepRoot::all_gather, static_cast<double>(cell.ag_bytes)) : 0.0};
  return cell;
}

}  // namespace tpb
