// mpi_bench report: the decision record of a judged study (report.md + PNG).
#include <fmt/format.h>

#include <memory>

#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/lock_wait_option.hpp"
#include "results/report.hpp"
#include "results/file_lock.hpp"
#include "results/verify.hpp"

namespace tpb {
namespace {

struct ReportOptions {
  std::string file;     // FILE.h5, judged
  std::string out_dir;  // -o DIR
  bool allow_incomplete = false;  // report an unverified file, labelled as such
  double lock_wait_s = kDefaultLockWaitSeconds;
};

int run_report(const ReportOptions& options) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string path;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (rank != 0) return;
    wait_for_file_lock(options.file, options.lock_wait_s);
    const VerifyResult verified = require_verified_results(options.file, options.allow_incomplete);
    path = write_report(options.file, options.out_dir);
    label_unverified_report(path, verified);
  });
  if (rank == 0) fmt::print("# report: {}\n", path);
  return 0;
}

}  // namespace

void add_report_command(CLI::App& root, CommandList& commands) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* app = root.add_subcommand("report", "Study stage 5: report.md and figures from a judged results file");
  app->add_option("FILE", options->file, "Judged results file")->required();
  app->add_option("-o,--output", options->out_dir, "Directory for report.md and the figures")->required();
  app->add_flag("--allow-incomplete", options->allow_incomplete,
                "Report a file that fails 'mpi_bench verify' (incomplete or inconsistent); its first line says so");
  add_lock_wait_option(*app, options->lock_wait_s);
  commands.push_back({app, [options](const Invocation&) { return run_report(*options); }});
}

}  // namespace tpb
