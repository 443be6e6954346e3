// mpi_bench verify FILE.h5: is this results file safe to read numbers from?
// Exit 0: valid and complete. Exit 1: the first problem is printed (all of
// them with --all). Exit 2: FILE does not exist.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>
#include <memory>

#include "collectives/mpi_check.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/lock_wait_option.hpp"
#include "results/file_lock.hpp"
#include "results/verify.hpp"

namespace tpb {
namespace {

// Like cmp(1) and diff(1): 1 means "the file is not what it should be".
constexpr int kExitInvalidFile = 1;

struct VerifyOptions {
  std::string path;        // FILE.h5
  bool all = false;        // list every problem, not just the first
  double lock_wait_s = kDefaultLockWaitSeconds;
};

int run_verify(const VerifyOptions& options) {
  int rank = 0;
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  // One reader is enough; the verdict is shared so every rank exits alike.
  VerifyResult result;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (rank != 0) return;
    wait_for_file_lock(options.path, options.lock_wait_s);
    result = verify_results_file(options.path);
  });
  int exit_code = result.ok() ? 0 : kExitInvalidFile;
  MPI_CHECK(MPI_Bcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank != 0) return exit_code;

  if (result.ok()) {
    fmt::print("{}\n", result.summary());
    return 0;
  }
  std::fprintf(stderr, "tpbench: verify: %s\n", result.summary().c_str());
  if (options.all)
    for (std::size_t i = 1; i < result.problems.size(); ++i)
      std::fprintf(stderr, "tpbench: verify: %s: %s\n", options.path.c_str(), result.problems[i].message.c_str());
  return exit_code;
}

}  // namespace

void add_verify_command(CLI::App& root, CommandList& commands) {
  auto options = std::make_shared<VerifyOptions>();
  CLI::App* app = root.add_subcommand(
      "verify", "Check a results file: schema, datasets, shapes, timings finite, pre-registration seal, complete");
  app->add_option("FILE", options->path, "Results file (.h5)")->required();
  app->add_flag("--all", options->all, "List every problem, not only the first");
  add_lock_wait_option(*app, options->lock_wait_s);
  commands.push_back({app, [options](const Invocation&) { return run_verify(*options); }});
}

}  // namespace tpb
