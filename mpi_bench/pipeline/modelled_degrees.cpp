#include "mpi_bench/pipeline/modelled_degrees.hpp"

#include "mpi_bench/pipeline/calibrated_cell.hpp"

#include "predictor/collective_extrapolation.hpp"
#include "predictor/piecewise_fit.hpp"
#include "results/layout.hpp"
#include "results/study_file.hpp"

namespace tpb {

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
        const std::string replay = step_point_path(StepRoot::replay, k, b, c);
        const CellInputs cell = calibrated_cell(file, w, k, b, c, [&](SweepRoot root, double bytes) {
          return ring_scaled_us(root == SweepRoot::all_reduce ? all_reduce : all_gather, km, k, bytes);
        });
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
