// mpi_bench run: the whole study in one launch:
// calibrate -> register -> measure -> verdict -> report, into one directory;
// with --ablate-collective, the collective ablation runs after the measurement.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/pipeline/ablation_stage.hpp"
#include "mpi_bench/pipeline/campaign.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_run.hpp"
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
  std::string campaign_dir;       // --campaign DIR: one launch of a sealed campaign, into DIR/launch-NNN
  std::optional<int> launch;      // --launch N (else SLURM_ARRAY_TASK_ID, else the next free one)
  std::vector<std::string> forms;  // --form NAME=FILE, repeatable
  bool overwrite = false;
};

// A campaign's launch: the sealed design, refused when the flags contradict
// it; the launch's directory. Every rank reads the same files.
struct CampaignLaunch {
  SealedCampaign campaign;
  int index = 0;
  std::string out_dir;
};

CampaignLaunch campaign_launch(const RunOptions& options, const StudyDeclaration& declaration, double kill_switch,
                               const std::vector<OutsideForm>& outside_forms) {
  CampaignLaunch launch;
  launch.campaign = read_sealed_campaign(options.campaign_dir);
  const CampaignDesign& sealed = launch.campaign.design;
  const std::string difference = campaign_design_difference(
      sealed, campaign_design_for(declaration, kill_switch, sealed.launches, outside_forms));
  if (!difference.empty()) throw UsageError(fmt::format("run --campaign {}: {}", options.campaign_dir, difference));
  launch.index = resolve_launch_index(launch.campaign, options.launch);
  launch.out_dir = launch_dir(launch.campaign, launch.index);
  return launch;
}

int run_command(const RunOptions& options, const Invocation& invocation) {
  StudyDeclaration declaration;
  double kill_switch = 0;
  std::optional<CollectiveKind> ablation;
  std::optional<CampaignLaunch> launch;
  std::vector<OutsideForm> outside_forms;
  validate_collectively(MPI_COMM_WORLD, [&] {
    declaration = parse_study_flags(options.study);
    kill_switch = parse_kill_switch(options.kill_switch);
    outside_forms = read_outside_forms(options.forms, declaration.grid);
    if (options.campaign_dir.empty() == options.out_dir.empty())
      throw UsageError("run: give either -o DIR or --campaign DIR");
    if (options.launch && options.campaign_dir.empty()) throw UsageError("--launch: only with --campaign DIR");
    if (!options.campaign_dir.empty()) {
      if (!options.ablate_collective.empty() || !options.transfer_from.empty())
        throw UsageError("--campaign: a campaign's launch runs the sealed study alone (no --ablate-collective or "
                         "--transfer-from)");
      launch = campaign_launch(options, declaration, kill_switch, outside_forms);
    }
    if (!options.ablate_collective.empty())
      ablation = parse_collective_kind("--ablate-collective", options.ablate_collective);
    if (!options.transfer_from.empty())
      precheck_transfer_source(options.transfer_from, declaration.grid, to_string(declaration.backend),
                               to_string(declaration.collective));
  });
  StudyRuntime runtime = start_study_runtime(declaration);
  if (ablation) validate_collectively(MPI_COMM_WORLD, [&] { check_ablation_collective(runtime, *ablation); });
  if (finish_dry_run("run", runtime.ranks, runtime.config, declaration, runtime.memory)) return 0;
  const RunMeta meta = collect_run_meta(runtime.ranks, invocation.argc, invocation.argv);
  const std::string out_dir = launch ? launch->out_dir : options.out_dir;
  const std::string campaign_sha256 = launch ? launch->campaign.sha256 : "";
  if (launch && runtime.ranks.is_root())
    fmt::print("# campaign {}: launch {} of {}, into {}\n", launch->campaign.dir, launch->index,
               launch->campaign.design.launches, out_dir);
  const std::string results_path = (std::filesystem::path(out_dir) / "study.h5").string();
  std::unique_ptr<ResultsFile> file;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!runtime.ranks.is_root()) return;
    std::filesystem::create_directories(out_dir);
    file = std::make_unique<ResultsFile>(results_path, options.overwrite, meta);
  });

  const StudyVerdict results =
      run_study(runtime, file.get(),
                {kill_switch, out_dir, options.transfer_from, campaign_sha256, ablation, outside_forms});
  if (!file) return 0;
  file.reset();  // closed before the report reopens it read-only
  // The answer per TP degree comes last, where a reader of the log looks first.
  fmt::print("# results: {}\n# report: {}\n", results_path, write_report(results_path, out_dir));
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
        app.add_option("-o,--output", options.out_dir, "Directory for study.h5, predictions.json, report.md");
        app.add_option("--campaign", options.campaign_dir,
                       "One launch of the campaign sealed in DIR ('mpi_bench campaign init'), into DIR/launch-NNN; "
                       "the flags must be the sealed study's");
        app.add_option("--launch", options.launch,
                       "The launch's index in 1..L (default: SLURM_ARRAY_TASK_ID, else the next free one)");
        app.add_flag("--overwrite", options.overwrite, "Replace an existing study.h5 in DIR");
        app.add_option("--ablate-collective", options.ablate_collective,
                       "After the study, run its TP-k steps again with this collective (mpi, nccl or oneshot), "
                       "predicted from its own sweeps and registered first; the report compares the two");
        app.add_option("--transfer-from", options.transfer_from,
                       "Another model's calibrated study on this machine (A/study.h5): also register the `transfer` "
                       "form, this model's steps priced by A's fitted per-phase costs");
        add_outside_form_option(app, options.forms);
      },
      run_command);
}

}  // namespace tpb
