// mpi_bench calibrate: the first stage of a study on its own (see
// pipeline/stages.hpp): creates the results file with /study, /config,
// /step_nocomm/k1, /replay, /sweep and /sweep_allgather.
#include <fmt/format.h>

#include <memory>

#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_options.hpp"
#include "mpi_bench/provenance.hpp"

namespace tpb {
namespace {

struct CalibrateOptions {
  StudyFlags study;
  std::string output;  // -o FILE.h5
  bool overwrite = false;
};

int run_calibrate(const CalibrateOptions& options, const Invocation& invocation) {
  StudyDeclaration declaration;
  validate_collectively(MPI_COMM_WORLD, [&] { declaration = parse_study_flags(options.study); });
  StudyRuntime runtime = start_study_runtime(declaration);
  if (finish_dry_run("calibrate", runtime.ranks, runtime.config, declaration, runtime.memory)) return 0;
  const RunMeta meta = collect_run_meta(runtime.ranks, invocation.argc, invocation.argv);
  const std::unique_ptr<ResultsFile> file =
      open_results_on_root(runtime.ranks, options.output, options.overwrite, meta);
  calibrate_stage(runtime, file.get());
  complete_results(file, options.output, "calibrated");
  return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& root, CommandList& commands) {
  add_command<CalibrateOptions>(
      root, commands, "calibrate",
      "Study stage 1: TP-1 compute (--no-comm), shard replay per k, all-reduce/all-gather sweeps",
      [](CLI::App& app, CalibrateOptions& options) {
        add_study_flags(&app, options.study);
        app.add_option("-o,--output", options.output, "Results file to create (FILE.h5)")->required();
        app.add_flag("--overwrite", options.overwrite, "Replace an existing results file");
      },
      run_calibrate);
}

}  // namespace tpb
