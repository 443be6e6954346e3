// The study's collective ablation: the same TP-k steps with another
// collective implementation, predicted and registered before they run.
#include "mpi_bench/pipeline/ablation_stage.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "collectives/communicator_factory.hpp"
#include "collectives/node_check.hpp"
#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/pipeline/calibrated_cell.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "results/ablation_file.hpp"
#include "results/layout.hpp"

namespace tpb {
namespace {

// The study's registration with the ablation's sweeps in place of its own
// collective's: every other input (compute, replay, host terms), the forms,
// the kill switches and the bootstrap stay as registered, so the two
// predictions differ by the collective term alone.
Registration ablation_registration(const H5File& file, const std::string& root, const std::vector<int>& degrees) {
  Registration r = parse_registration(read_prereg(file).text);
  r.grid.tp = degrees;
  std::vector<CellInputs> cells;
  for (CellInputs cell : r.calibration) {
    const int k = cell.inputs.k;
    if (std::find(degrees.begin(), degrees.end(), k) == degrees.end()) continue;
    cell.inputs.t_ar_sweep_us =
        sweep_fit(file, SweepRoot::all_reduce, k, root).predict_us(static_cast<double>(cell.ar_bytes));
    cell.inputs.t_ag_sweep_us =
        sweep_fit(file, SweepRoot::all_gather, k, root).predict_us(static_cast<double>(cell.ag_bytes));
    cells.push_back(cell);
  }
  r.calibration = cells;
  for (const SweepRoot sweep : {SweepRoot::all_reduce, SweepRoot::all_gather})
    for (int k : degrees) {
      r.source.datasets.push_back(sweep_dataset_path(sweep, k, "bytes", root));
      r.source.datasets.push_back(sweep_dataset_path(sweep, k, "time_us", root));
    }
  r.source.datasets_sha256 = datasets_sha256(file, r.source.datasets);
  r.predictions = predict_all(r.calibration, registered_forms(r));  // `roofline` too: its compute share is sealed
  // An outside form states t_step whole, with no collective term to swap.
  r.outside_forms.clear();
  r.registered_at = utc_timestamp_us();
  return r;
}

PreregRecord register_ablation(H5File& file, std::string_view collective, const std::vector<int>& degrees,
                               const std::string& predictions_dir) {
  const Registration r = ablation_registration(file, ablation_root_path(collective), degrees);
  PreregRecord record{registration_json(r), "", r.registered_at};
  record.sha256 = write_sealed_text(predictions_dir, fmt::format("predictions_{}.json", collective), record.text);
  write_ablation_prereg(file, collective, record);
  return record;
}

// The TP degrees an ablation runs: those of the grid above 1 (at k = 1 no
// collective runs). UsageError naming --ablate-collective when there are none,
// or when `collective` is the study's own.
std::vector<int> ablation_degrees(const StudyDeclaration& d, CollectiveKind collective) {
  if (collective == d.collective)
    throw UsageError(fmt::format("--ablate-collective: '{}' is the study's own collective (name another: mpi, nccl "
                                 "or oneshot)",
                                 to_string(collective)));
  const std::vector<int> degrees = collective_degrees(d.grid.tp);
  if (degrees.empty())
    throw UsageError(fmt::format("--ablate-collective: --tp {} has no degree above 1, where a collective runs",
                                 fmt::join(d.grid.tp, ",")));
  return degrees;
}

}  // namespace

void check_ablation_collective(const StudyRuntime& rt, CollectiveKind collective) {
  const StudyDeclaration& d = rt.declaration;
  const std::vector<int> degrees = ablation_degrees(d, collective);
  require_built(collective, "--ablate-collective");
  require_collective_for_backend(collective, d.backend, "--ablate-collective");
  if (collective == CollectiveKind::oneshot)
    require_tp_groups_on_one_node(MPI_COMM_WORLD, degrees, "--ablate-collective oneshot");
  // The study's own check counted its collective's buffers; the ablation's
  // steps hold this one's, one TP group at a time.
  GridChoice steps = d;
  steps.grid.tp = degrees;
  check_grid_memory(rt.config, steps,
                    MemorySetup{d.backend, collective, backend_memory_types(d.backend), 1, false, true}, rt.ranks);
}

void ablation_stage(StudyRuntime& rt, ResultsFile* file, CollectiveKind collective,
                    const std::string& predictions_dir) {
  const StudyDeclaration& d = rt.declaration;
  const std::vector<int> degrees = ablation_degrees(d, collective);
  const std::string name(to_string(collective));
  const std::string root = ablation_root_path(name);
  const std::unique_ptr<Communicator> world =
      make_communicator(collective, collective_memory(collective, d.backend), MPI_COMM_WORLD);

  calibrate_collective_sweeps(rt, file, *world, degrees, root);
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!file) return;
    const PreregRecord record = register_ablation(file->h5(), name, degrees, predictions_dir);
    study_progress(rt, fmt::format("ablation {}: registered at {}, sha256 {}", name, record.registered_at,
                                   record.sha256));
    write_measurement_stamp(file->h5(), {record.sha256, utc_timestamp_us()}, root);
  });

  const StepOptions options{.warmup = d.warmup_iters, .iters = d.iters};
  for (int k : degrees) {
    const std::unique_ptr<Communicator> group = split_into_tp_groups(*world, k);
    for (int b : d.grid.batch)
      for (int c : d.grid.context) {
        study_progress(rt, fmt::format("ablation {}: TP-{} b={} c={}", name, k, b, c));
        GatheredPoint step = run_point_everywhere(rt, group.get(), {k, b, c}, options);
        if (!file) continue;
        step.path = root + step.path;
        write_gathered_point(*file, step);
      }
  }
}

}  // namespace tpb
