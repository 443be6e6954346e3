// measure: the TP-k steps the registration predicted, their anchors and the
// same-node control, in randomized interleaved rounds (study_rounds.hpp).
// Nothing here runs unless an intact registration is on file.
#include <fmt/format.h>

#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_rounds.hpp"
#include "results/custody.hpp"

namespace tpb {

void measure_stage(StudyRuntime& rt, ResultsFile* file) {
  Registration registration;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!file) return;
    const PreregRecord prereg = read_prereg(file->h5());
    const std::string problem = seal_problem(prereg);
    if (!problem.empty())
      throw UsageError(fmt::format("FILE: refusing to measure '{}': {}", file->h5().path(), problem));
    if (has_measurement(file->h5()))
      throw UsageError(fmt::format("FILE: '{}' already holds a TP-k measurement: a registration is measured once",
                                   file->h5().path()));
    registration = parse_registration(prereg.text);
    write_measurement_stamp(file->h5(), {prereg.sha256, utc_timestamp_us()});
  });
  run_study_rounds(rt, file, file ? &registration : nullptr);
}

}  // namespace tpb
