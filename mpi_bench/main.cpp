// mpi_bench: the tpbench executable. Parses the subcommand, runs it, and turns
// every failure into one line and a non-zero exit on every rank.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>

#include "common/error.hpp"
#include "mpi_bench/commands.hpp"  // add_*_command for each subcommand
#include "mpi_bench/rank_context.hpp"  // MpiSession
#include "mpi_bench/watchdog.hpp"  // Watchdog, -T/--timeout
#include "tpb_version.hpp"  // TPB_TOOL_VERSION

namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Prints from rank 0 only: every rank parsed the same input and agreed on it.
void print_usage_error(const std::string& message) {
  if (world_rank() == 0) std::fprintf(stderr, "tpbench: error: %s\n", message.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  tpb::MpiSession mpi(argc, argv);
  if (!mpi.problem().empty()) {
    print_usage_error(mpi.problem());
    return tpb::kExitUsage;
  }

  CLI::App app{
      "tpbench: does a tensor-parallel decode step cost t_compute(1)/k + allreduce(k)?\n"
      "Launch with mpirun/srun, one rank per device. 'mpi_bench SUBCOMMAND --help' for each stage.",
      "mpi_bench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tpbench ") + TPB_TOOL_VERSION);
  tpb::CommandList commands;
  tpb::add_info_command(app, commands);
  tpb::add_sweep_command(app, commands);
  tpb::add_step_command(app, commands);
  tpb::add_replay_command(app, commands);
  tpb::add_membw_command(app, commands);
  tpb::add_d2d_command(app, commands);
  tpb::add_verify_command(app, commands);
  tpb::add_kv_command(app, commands);
  tpb::add_calibrate_command(app, commands);
  tpb::add_register_command(app, commands);
  tpb::add_measure_command(app, commands);
  tpb::add_verdict_command(app, commands);
  tpb::add_report_command(app, commands);
  tpb::add_calibration_command(app, commands);
  tpb::add_run_command(app, commands);
  tpb::add_campaign_command(app, commands);
  tpb::WatchdogOptions watchdog_options;
  tpb::add_timeout_option(commands, watchdog_options);  // after every add_*_command

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --version
    if (world_rank() == 0) app.exit(done);
    return 0;
  } catch (const CLI::ParseError& error) {
    print_usage_error(error.what());
    return tpb::kExitUsage;
  }

  for (const auto& command : commands) {
    if (!command.app->parsed()) continue;
    try {
      tpb::Watchdog watchdog(watchdog_options);
      return command.run(tpb::Invocation{argc, argv});
    } catch (const tpb::UsageError& error) {
      print_usage_error(error.what());
      return tpb::kExitUsage;
    } catch (const tpb::Error& error) {
      std::fprintf(stderr, "%s\n", error.one_line().c_str());
      std::fflush(stderr);
      // A rank failing mid-run cannot count on its peers reaching a common
      // exit: end the whole job now.
      MPI_Abort(MPI_COMM_WORLD, tpb::kExitRuntime);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "tpbench: error: [rank %d] %s\n", world_rank(), error.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, tpb::kExitRuntime);
    }
  }
  return 0;
}
