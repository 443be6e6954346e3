// mpi_bench verdict: judges a measured study against its registration.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/lock_wait_option.hpp"
#include "mpi_bench/pipeline/campaign.hpp"
#include "mpi_bench/pipeline/decision_stage.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/pipeline/study_options.hpp"
#include "results/file_lock.hpp"
#include "results/verify.hpp"

namespace tpb {
namespace {

struct VerdictOptions {
  std::string file;
  DesignClaimFlags claims;  // each given one must equal the sealed design
  bool allow_incomplete = false;  // judge a file that fails verify
  std::string campaign_dir;       // --campaign DIR: pool a campaign's launches instead of judging FILE
  double lock_wait_s = kDefaultLockWaitSeconds;
};

// verdict --campaign DIR: the launches pooled (campaign.hpp), on rank 0.
int run_campaign_verdict(const VerdictOptions& options) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string summary;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!options.file.empty()) throw UsageError("verdict: give either FILE or --campaign DIR");
    if (rank == 0) summary = campaign_verdict_stage(options.campaign_dir);
  });
  if (rank == 0) fmt::print("{}", summary);
  return 0;
}

int run_verdict(const VerdictOptions& options) {
  if (!options.campaign_dir.empty()) return run_campaign_verdict(options);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (options.file.empty()) throw UsageError("verdict: give FILE or --campaign DIR");
  StudyVerdict results;
  validate_collectively(MPI_COMM_WORLD, [&] {
    const DesignClaims claims = parse_design_claims(options.claims);
    if (rank != 0) return;
    wait_for_file_lock(options.file, options.lock_wait_s);
    const VerifyResult verified = require_verified_results(options.file, options.allow_incomplete);
    // Refuse before opening for writing: opening marks the file complete=0.
    judgeable_registration(H5File(options.file, H5Mode::read_only), claims);
    ResultsFile file(options.file);
    results = verdict_stage(file.h5(), claims);
    if (const std::optional<MemoryBudget> budget = read_study_budget(file.h5())) {
      decision_stage(file.h5(), *budget);
    } else {
      fmt::print("# no memory budget in /study (calibrated by an older tpbench): /decision not written\n");
    }
    if (verified.complete) file.mark_complete();  // a verdict does not complete an unfinished measurement
  });
  if (rank == 0) fmt::print("{}", verdict_summary(results));
  return 0;
}

}  // namespace

void add_verdict_command(CLI::App& root, CommandList& commands) {
  auto options = std::make_shared<VerdictOptions>();
  CLI::App* app = root.add_subcommand(
      "verdict",
      "Study stage 4: per (form, k) the decision over the rounds, gated by the controls, into /verdict; then the "
      "Decision under the study's memory budget, into /decision");
  app->add_option("FILE", options->file, "Measured results file");
  app->add_option("--campaign", options->campaign_dir,
                  "Pool the launches of the campaign in DIR (run --campaign) into DIR/campaign.h5 and DIR/report.md");
  app->add_flag("--allow-incomplete", options->allow_incomplete,
                "Judge a file that fails 'mpi_bench verify' (incomplete or inconsistent); it stays complete=0");
  add_design_claim_flags(*app, options->claims);
  add_lock_wait_option(*app, options->lock_wait_s);
  commands.push_back({app, [options](const Invocation&) { return run_verdict(*options); }});
}

}  // namespace tpb
