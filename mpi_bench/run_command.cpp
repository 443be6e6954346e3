// mpi_bench run: the whole study in one launch:
// calibrate -> register -> measure -> verdict -> report, into one directory;
// with --ablate-collective, the collective ablation runs after the measurement.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/pipeline/ablation_stage.hpp"
#include "mpi_bench/pipeline/decision_stage.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_options.hpp"
#include "mpi_bench/pipeline/transfer_calibration.hpp"
#include "mpi_bench/provenance.hpp"
#include "results/report.hpp"

namespace tpb {
namespace {

struct RunOptions {
  StudyFlags study;
  std::string kill_switch = default_kill_switch_text();
  std::string out_dir;  // -o DIR: study.h5, predictions.json(.sha256), report.md, fig_*.png
  std::string ablate_collective;  // --ablate-collective IMPL; empty: no ablation
  std::string transfer_from;      // --transfer-from A.h5; empty: no `transfer` form
  bool overwrite = false;
};

int run_study(const RunOptions& options, const Invocation& invocation) {
  StudyDeclaration declaration;
  double kill_switch = 0;
  std::optional<CollectiveKind> ablation;
  validate_collectively(MPI_COMM_WORLD, [&] {
    declaration = parse_study_flags(options.study);
    kill_switch = parse_kill_switch(options.kill_switch);
    if (!options.ablate_collective.empty())
      ablation = parse_collective_kind("--ablate-collective", options.ablate_collective);
    if (!options.transfer_from.empty())
      precheck_transfer_source(options.transfer_from, declaration.grid, to_string(declaration.backend),
                               to_string(declaration.collective));
  });
  StudyRuntime runtime = start_study_runtime(declaration);
  if (ablation) validate_collectively(MPI_COMM_WORLD, [&] { check_ablation_collective(runtime, *ablation); });
  if (declaration.dry_run) {
    if (runtime.ranks.is_root()) print_dry_run("run", runtime.config, declaration, runtime.memory);
    return 0;
  }
  const RunMeta meta = collect_run_meta(runtime.ranks, invocation.argc, invocation.argv);
  const std::string results_path = (std::filesystem::path(options.out_dir) / "study.h5").string();
  std::unique_ptr<ResultsFile> file;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!runtime.ranks.is_root()) return;
    std::filesystem::create_directories(options.out_dir);
    file = std::make_unique<ResultsFile>(results_path, options.overwrite, meta);
  });

  calibrate_stage(runtime, file.get());
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!file) return;
    const PreregRecord record = register_stage(file->h5(), kill_switch, options.out_dir, options.transfer_from);
    study_progress(runtime, fmt::format("registered at {}, sha256 {}", record.registered_at, record.sha256));
    if (const std::string plan = planned_rounds_line(record); !plan.empty()) study_progress(runtime, plan);
  });
  measure_stage(runtime, file.get());
  if (ablation) ablation_stage(runtime, file.get(), *ablation, options.out_dir);
  if (!file) return 0;
  const StudyVerdict results = verdict_stage(file->h5(), DesignClaims{});
  decision_stage(file->h5(), runtime.memory.budget);
  file->mark_complete();
  file.reset();  // closed before the report reopens it read-only
  // The answer per TP degree comes last, where a reader of the log looks first.
  fmt::print("# results: {}\n# report: {}\n", results_path, write_report(results_path, options.out_dir));
  fmt::print("{}", verdict_summary(results));
  return 0;
}

}  // namespace

void add_run_command(CLI::App& root, CommandList& commands) {
  add_command<RunOptions>(
      root, commands, "run",
      "The whole study in one launch: calibrate, register, measure, verdict, report (into -o DIR)",
      [](CLI::App& app, RunOptions& options) {
        add_study_flags(&app, options.study);
        app.add_option("--kill-switch", options.kill_switch, "MAPE threshold in percent for every form")
            ->capture_default_str();
        app.add_option("-o,--output", options.out_dir, "Directory for study.h5, predictions.json, report.md")
            ->required();
        app.add_flag("--overwrite", options.overwrite, "Replace an existing study.h5 in DIR");
        app.add_option("--ablate-collective", options.ablate_collective,
                       "After the study, run its TP-k steps again with this collective (mpi, nccl or oneshot), "
                       "predicted from its own sweeps and registered first; the report compares the two");
        app.add_option("--transfer-from", options.transfer_from,
                       "Another model's calibrated study on this machine (A/study.h5): also register the `transfer` "
                       "form, this model's steps priced by A's fitted per-phase costs");
      },
      run_study);
}

}  // namespace tpb
