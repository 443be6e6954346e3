// mpi_bench measure: the TP-k steps of a registered study, and the control.
#include <fmt/format.h>

#include <memory>

#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/pipeline/stages.hpp"

namespace tpb {
namespace {

struct MeasureOptions {
  std::string file;  // FILE.h5, calibrated and registered
};

int run_measure(const MeasureOptions& options, const Invocation&) {
  RankContext ranks;
  validate_collectively(MPI_COMM_WORLD, [&] { ranks = bootstrap_ranks(MPI_COMM_WORLD, false); });
  const StudyDeclaration declaration = broadcast_declaration(ranks, options.file);
  StudyRuntime runtime = start_study_runtime(declaration);
  std::unique_ptr<ResultsFile> file;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (runtime.ranks.is_root()) file = std::make_unique<ResultsFile>(options.file);
  });
  measure_stage(runtime, file.get());
  if (file) {
    file->mark_complete();
    fmt::print("# measured: {}\n", options.file);
  }
  return 0;
}

}  // namespace

void add_measure_command(CLI::App& root, CommandList& commands) {
  add_command<MeasureOptions>(
      root, commands, "measure",
      "Study stage 3: TP-k steps for every k and the same-node control (needs a registration)",
      [](CLI::App& app, MeasureOptions& options) {
        app.add_option("FILE", options.file, "Calibrated and registered results file")->required();
      },
      run_measure);
}

}  // namespace tpb
