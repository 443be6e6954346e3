#include "mpi_bench/pipeline/study_run.hpp"

#include <fmt/format.h>

#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/pipeline/ablation_stage.hpp"
#include "mpi_bench/pipeline/decision_stage.hpp"

namespace tpb {

StudyVerdict run_study(StudyRuntime& runtime, ResultsFile* file, const StudyRunChoices& choices) {
  calibrate_stage(runtime, file);
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!file) return;
    const PreregRecord record = register_stage(file->h5(), choices.kill_switch_pct, choices.out_dir,
                                               choices.transfer_from, choices.campaign_sha256, choices.outside_forms);
    study_progress(runtime, fmt::format("registered at {}, sha256 {}", record.registered_at, record.sha256));
    if (const std::string plan = planned_rounds_line(record); !plan.empty()) study_progress(runtime, plan);
  });
  measure_stage(runtime, file);
  if (choices.ablation) ablation_stage(runtime, file, *choices.ablation, choices.out_dir);
  if (!file) return {};
  StudyVerdict results = verdict_stage(file->h5(), DesignClaims{});
  decision_stage(file->h5(), runtime.memory.budget);
  file->mark_complete();
  return results;
}

}  // namespace tpb
