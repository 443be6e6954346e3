// mpi_bench replay: on ONE rank, the shard shapes one rank of TP-k computes,
// without collectives: the compute term of TP-k measured on a single device
// (the `replay` model form's input). World rank 0 runs every point; other
// ranks of the launch only wait.
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <thread>

#include "collectives/mpi_check.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/memory_precheck.hpp"
#include "mpi_bench/provenance.hpp"
#include "mpi_bench/rank_context.hpp"
#include "mpi_bench/step_cli.hpp"
#include "mpi_bench/step_output.hpp"
#include "mpi_bench/watchdog.hpp"
#include "predictor/statistics.hpp"
#include "results/results_file.hpp"
#include "tpb_version.hpp"

namespace tpb {
namespace {

int run_replay(const StepCliOptions& o, const Invocation& invocation) {
  StepCliPlan plan;
  RankContext ranks;
  MemoryPlan memory;
  validate_collectively(MPI_COMM_WORLD, [&] {
    plan = parse_step_cli(o);
    ranks = bootstrap_ranks(MPI_COMM_WORLD, plan.backend == BackendKind::cuda);
    // A replay runs each TP-k shard on one rank, without collectives.
    memory = check_grid_memory(plan.config, plan,
                               MemorySetup{plan.backend, plan.collective, backend_memory_types(plan.backend), 1, false, false}, ranks);
  });
  if (finish_dry_run("replay", ranks, plan.config, plan, memory)) return 0;
  const RunMeta meta = collect_run_meta(ranks, invocation.argc, invocation.argv);
  std::unique_ptr<Backend> backend;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (ranks.is_root()) backend = make_backend(plan.backend, plan.config);
  });
  const std::unique_ptr<ResultsFile> results = open_results_on_root(ranks, o.output, o.overwrite, meta);

  if (ranks.is_root()) {
    if (results) write_model_config(results->h5(), model_config_record(plan.config));
    // Under --graph each point is one CUDA graph replayed (its /replay group's `graph` attribute is 1): no launch gaps.
    fmt::print("# tpbench {} replay: {} ({} layers of {}), backend {}, one rank, no collectives{}\n", TPB_TOOL_VERSION,
               plan.config.name, plan.config.num_layers, plan.config.num_layers_in_file, to_string(plan.backend),
               plan.options.graph ? ", --graph" : "");
    fmt::print("# device: {}\n", backend->device_description());
    fmt::print("# {:>3} {:>5} {:>7} {:>12} {:>11} {:>16}\n", "k", "batch", "context", "t_step_us", "t_host_us",
               "weight_bytes");
    WeightCache weights;  // one shard's weights serve every (b, c) point of its k
    for (int k : plan.grid.tp)
      for (int batch : plan.grid.batch)
        for (int context : plan.grid.context) {
          const StepRunInfo info{std::string(to_string(plan.backend)), StepPoint{k, batch, context}, plan.options,
                                 true};
          report_progress("replay", fmt::format("k={} b={} c={}", k, batch, context));
          const StepTerms terms = run_step_point(*backend, nullptr, plan.config, info.point, plan.options, &weights);
          const StepPointRecord record = gather_step_point(MPI_COMM_SELF, 1, terms);
          if (results) {
            write_step_point(results->h5(), step_point_path(info), record,
                             step_point_attributes(info, plan.config, terms, nullptr));
            results->flush();
          }
          fmt::print("  {:>3} {:>5} {:>7} {:>12.1f} {:>11.1f} {:>16}\n", k, batch, context, median(record.t_step_us),
                     median(record.t_host_us), terms.weight_bytes_per_step);
          std::fflush(stdout);
        }
    complete_results(results, o.output);
  }
  // The other ranks wait for rank 0 without looking stuck to their watchdogs.
  MPI_Request finished;
  MPI_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &finished));
  for (int done = 0; !done;) {
    MPI_CHECK(MPI_Test(&finished, &done, MPI_STATUS_IGNORE));
    if (!done) {
      report_progress("replay", "waiting for rank 0");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return 0;
}

}  // namespace

void add_replay_command(CLI::App& root, CommandList& commands) {
  add_command<StepCliOptions>(
      root, commands, "replay",
      "On one rank, the shard shapes one rank of TP-k computes, without collectives (compute term of TP-k)",
      add_step_cli_options, run_replay);
}

}  // namespace tpb
