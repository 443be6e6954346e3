// measure: the TP-k steps the registration predicted, plus the same-node
// control. Nothing here runs unless an intact registration is on file.
#include <fmt/format.h>

#include <algorithm>

#include "collectives/communicator_factory.hpp"
#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "predictor/sha256.hpp"

namespace tpb {
namespace {

// Same-node control, second half: TP-1 on each rank alone (the first half is
// the TP-1 measurement, every rank at once).
void measure_control_alone(StudyRuntime& rt, ResultsFile* file, const StepOptions& options) {
  const StudyDeclaration& d = rt.declaration;
  const std::unique_ptr<Communicator> solo = split_into_tp_groups(*rt.world, 1);
  for (int b : d.grid.batch)
    for (int c : d.grid.context) {
      study_progress(rt, fmt::format("measure: control, TP-1 on each rank alone b={} c={}", b, c));
      const std::vector<double> alone = run_point_each_rank_alone(rt, *solo, {1, b, c}, options);
      if (file)
        file->h5().write_dataset(control_t_step_path(ControlMode::alone, b, c), alone,
                                 {static_cast<std::uint64_t>(d.iters), static_cast<std::uint64_t>(rt.ranks.size)});
    }
}

}  // namespace

void measure_stage(StudyRuntime& rt, ResultsFile* file) {
  const StudyDeclaration& d = rt.declaration;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!file) return;
    const PreregRecord prereg = read_prereg(file->h5());
    if (sha256_hex(prereg.text) != prereg.sha256)
      throw UsageError(fmt::format("FILE: the registration in '{}' does not match its SHA-256 ({}): it was changed "
                                   "after registration; refusing to measure",
                                   file->h5().path(), prereg.sha256));
    if (has_measurement(file->h5()))
      throw UsageError(fmt::format("FILE: '{}' already holds a TP-k measurement: a registration is measured once",
                                   file->h5().path()));
    write_measurement_stamp(file->h5(), {prereg.sha256, utc_timestamp_us()});
  });

  StepOptions options;
  options.warmup = d.warmup_iters;
  options.iters = d.iters;
  StepOptions no_comm = options;
  no_comm.no_comm = true;

  // Smallest k first and the control right after it: the TP-1 shard that
  // calibration left in the weight cache then serves both without redrawing.
  std::vector<int> ascending = d.grid.tp;
  std::sort(ascending.begin(), ascending.end());
  for (int k : ascending) {
    const std::unique_ptr<Communicator> group = split_into_tp_groups(*rt.world, k);
    for (int b : d.grid.batch)
      for (int c : d.grid.context) {
        study_progress(rt, fmt::format("measure: TP-{} b={} c={}", k, b, c));
        const GatheredPoint step = run_point_everywhere(rt, group.get(), {k, b, c}, options);
        if (file) {
          write_gathered_point(*file, step);
          // TP-1 on every rank at once is the first half of the same-node control.
          if (k == 1)
            file->h5().write_dataset(control_t_step_path(ControlMode::concurrent, b, c),
                                     step.all_ranks_t_step_us,
                                     {static_cast<std::uint64_t>(d.iters), static_cast<std::uint64_t>(rt.ranks.size)});
        }
        // The compute term of TP-k by ablation (TP-1's was measured at calibration).
        if (k > 1) {
          study_progress(rt, fmt::format("measure: TP-{} --no-comm b={} c={}", k, b, c));
          const GatheredPoint ablated = run_point_everywhere(rt, group.get(), {k, b, c}, no_comm);
          if (file) write_gathered_point(*file, ablated);
        }
      }
    if (k == ascending.front()) measure_control_alone(rt, file, options);
    if (file) file->flush();  // a killed job keeps every finished TP degree
  }
}

}  // namespace tpb
