// mpi_bench verdict: judges a measured study against its registration.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/lock_wait_option.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_options.hpp"
#include "results/file_lock.hpp"
#include "results/verify.hpp"

namespace tpb {
namespace {

struct VerdictOptions {
  std::string file;
  std::string kill_switch;  // optional: must equal the registered threshold
  bool allow_incomplete = false;  // judge a file that fails verify
  double lock_wait_s = kDefaultLockWaitSeconds;
};

int run_verdict(const VerdictOptions& options) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<FormDegreeResult> results;
  validate_collectively(MPI_COMM_WORLD, [&] {
    std::optional<double> kill_switch;
    if (!options.kill_switch.empty()) kill_switch = parse_kill_switch(options.kill_switch);
    if (rank != 0) return;
    wait_for_file_lock(options.file, options.lock_wait_s);
    const VerifyResult verified = require_verified_results(options.file, options.allow_incomplete);
    ResultsFile file(options.file);
    results = verdict_stage(file.h5(), kill_switch);
    if (verified.complete) file.mark_complete();  // a verdict does not complete an unfinished measurement
  });
  if (rank == 0) fmt::print("{}", verdict_summary(results));
  return 0;
}

}  // namespace

void add_verdict_command(CLI::App& root, CommandList& commands) {
  auto options = std::make_shared<VerdictOptions>();
  CLI::App* app = root.add_subcommand(
      "verdict", "Study stage 4: per (form, k) MAPE, HOLDS/FALSIFIED and the localizing term, into /verdict");
  app->add_option("FILE", options->file, "Measured results file")->required();
  app->add_option("--kill-switch", options->kill_switch,
                  "Refuse unless this equals the registered threshold (thresholds are fixed at registration)");
  app->add_flag("--allow-incomplete", options->allow_incomplete,
                "Judge a file that fails 'mpi_bench verify' (incomplete or inconsistent); it stays complete=0");
  add_lock_wait_option(*app, options->lock_wait_s);
  commands.push_back({app, [options](const Invocation&) { return run_verdict(*options); }});
}

}  // namespace tpb
