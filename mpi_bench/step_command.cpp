// mpi_bench step: the TP-k decode step for every (k, b, c) point, groups of k
// consecutive ranks all running at once, every iteration of every rank
// recorded per term (t_step, t_host, t_ar_insitu, phases), point by point.
#include <fmt/format.h>

#include <memory>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/node_check.hpp"
#include "common/cuda_info.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/membw.hpp"
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

struct StepCommandOptions {
  StepCliOptions common;  // the grid and timing options, -o, --graph, --profile, --no-comm, --check
  bool no_timers = false;
  bool membw = false;
};

void print_point(const StepRunInfo& info, const StepPointRecord& record, const StepTerms& t, double membw_GBps) {
  const double t_step = median(record.t_step_us);
  const auto median_or_dash = [](const std::vector<double>& values) {
    return values.empty() ? std::string("-") : fmt::format("{:.1f}", median(values));
  };
  const double weight_GBps = static_cast<double>(t.weight_bytes_per_step) / t_step / 1e3;
  std::string check = "-";
  if (info.options.check)
    check = t.check.compared ? fmt::format("ok {:.1e}<={:.1e}", t.check.max_abs_logit_diff, t.check.tolerance)
                             : "ok (finite)";
  fmt::print("  {:>3} {:>5} {:>7} {:>12.1f} {:>11} {:>14} {:>10} {:>10.2f} {:>8} {}\n", info.point.tp,
             info.point.batch, info.point.context, t_step, median_or_dash(record.t_host_us),
             median_or_dash(record.t_ar_insitu_us), t.ar_bytes, weight_GBps,
             membw_GBps > 0 ? fmt::format("{:.3f}", weight_GBps / membw_GBps) : "-", check);
  std::fflush(stdout);
}

int run_step(const StepCommandOptions& o, const Invocation& invocation) {
  int world_size = 1;
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
  StepCliPlan plan;
  RankContext ranks;
  StepOptions options;
  MemoryPlan memory;
  validate_collectively(MPI_COMM_WORLD, [&] {
    plan = parse_step_cli(o.common);
    for (int k : plan.grid.tp) require_tp_degree(k, world_size);
    options = plan.options;
    options.timers = !o.no_timers;
    // A captured one-shot call would replay its epoch: peers would take a stale
    // slot for the new payload.
    if (options.graph && plan.collective == CollectiveKind::oneshot && !options.no_comm)
      throw UsageError("--graph: the oneshot collective cannot be replayed from a CUDA graph (each call carries its "
                       "epoch); use --collective nccl or --no-comm");
    if (options.check && options.no_comm)
      throw UsageError("--check: cannot compare with TP-1 under --no-comm (its numerics are wrong by design)");
    ranks = bootstrap_ranks(MPI_COMM_WORLD, plan.backend == BackendKind::cuda);
    if (plan.collective == CollectiveKind::oneshot && !options.no_comm)
      require_tp_groups_on_one_node(MPI_COMM_WORLD, plan.grid.tp, "--collective oneshot");
    memory = check_grid_memory(plan.config, plan,
                               MemorySetup{plan.backend, plan.collective, backend_memory_types(plan.backend), 1,
                                           options.check, !options.no_comm},
                               ranks);
  });
  if (finish_dry_run("step", ranks, plan.config, plan, memory)) return 0;
  const RunMeta meta = collect_run_meta(ranks, invocation.argc, invocation.argv);
  std::unique_ptr<Backend> backend;
  validate_collectively(MPI_COMM_WORLD, [&] { backend = make_backend(plan.backend, plan.config); });
  const std::unique_ptr<ResultsFile> results =
      open_results_on_root(ranks, o.common.output, o.common.overwrite, meta);
  if (results) {
    write_model_config(results->h5(), model_config_record(plan.config));
    results->flush();
  }

  double membw_GBps = 0;  // world rank 0's median, measured with every rank reading at once
  double fma_peak_GFLOPs = 0;
  if (o.membw) {
    const MembwResult bandwidth = measure_read_bandwidth(MPI_COMM_WORLD, MembwOptions{});
    gather_membw(MPI_COMM_WORLD, results ? &results->h5() : nullptr, bandwidth);
    membw_GBps = median(bandwidth.read_GBps);
    fma_peak_GFLOPs = bandwidth.fma_peak_GFLOPs;
  }

  // On the backend's memory: --collective oneshot is the CUDA IPC one on the
  // cuda backend and the shared-window one on the cpu backend. Opened only for
  // a k > 1: a group of one rank has no collective (TP-1 never touches NCCL).
  std::unique_ptr<Communicator> world;
  for (int k : plan.grid.tp)
    if (k > 1 && !world) world = make_communicator(plan.collective, backend->memory_kind(), MPI_COMM_WORLD);
  if (ranks.is_root()) {
    fmt::print("# tpbench {} step: {} ({} layers of {}), backend {}, collective {}, {} ranks\n", TPB_TOOL_VERSION,
               plan.config.name, plan.config.num_layers, plan.config.num_layers_in_file, to_string(plan.backend),
               world ? std::string(to_string(plan.collective)) : "none (k = 1 opens no communicator)", ranks.size);
    fmt::print("# device: {}\n", backend->device_description());
    fmt::print("# warmup {} iters {}{}{}{}; times are medians over iterations in us; t_step: slowest rank of a group\n",
               options.warmup, options.iters, options.no_comm ? ", --no-comm (collectives skipped)" : "",
               options.graph ? ", --graph" : "", options.timers ? "" : ", per-op timers off");
    if (membw_GBps > 0)
      fmt::print("# membw (rank 0, all ranks reading at once): {:.2f} GB/s; FMA peak (one core): {:.1f} GFLOP/s; "
                 "matmul limit = max(weight bytes / membw, flops / (threads x peak))\n",
                 membw_GBps, fma_peak_GFLOPs);
    fmt::print("# {:>3} {:>5} {:>7} {:>12} {:>11} {:>14} {:>10} {:>10} {:>8} {}\n", "k", "batch", "context",
               "t_step_us", "t_host_us", "t_ar_insitu_us", "ar_bytes", "weight_GBps", "/membw", "check");
  }

  WeightCache weights;  // one shard's weights serve every (b, c) point of its k
  for (int k : plan.grid.tp) {
    // nullptr at k = 1: the step issues no collective and records none.
    const std::unique_ptr<Communicator> group = k > 1 ? split_into_tp_groups(*world, k) : nullptr;
    for (int batch : plan.grid.batch)
      for (int context : plan.grid.context) {
        const StepRunInfo info{std::string(to_string(plan.backend)), StepPoint{k, batch, context}, options, false};
        report_progress("step", fmt::format("k={} b={} c={}", k, batch, context));
        const StepTerms terms = run_step_point(*backend, group.get(), plan.config, info.point, options, &weights);
        if (!terms.check.failure.empty())
          throw_error("tpbench", 1, fmt::format("--check failed at k={} b={} c={}: {}", k, batch, context,
                                                terms.check.failure),
                      __FILE__, __LINE__);
        const StepPointRecord record = gather_step_point(MPI_COMM_WORLD, k, terms);
        if (!ranks.is_root()) continue;
        if (results) {
          StepPointAttributes attributes = step_point_attributes(info, plan.config, terms, group.get());
          if (membw_GBps > 0) attributes.membw_read_GBps = membw_GBps;
          write_step_point(results->h5(), step_point_path(info), record, attributes);
          results->flush();  // a killed job keeps every finished point
        }
        print_point(info, record, terms, membw_GBps);
        if (membw_GBps > 0 && plan.backend == BackendKind::cpu)  // the figures are the host's
          fmt::print("{}\n", matmul_phase_fractions(plan.config, k, batch, terms, membw_GBps, fma_peak_GFLOPs,
                                                     ranks.rank_map.front().omp_threads));
      }
  }
  if (ranks.is_root()) fmt::print("# communicators opened on rank 0: {}\n", communicators_opened());
  if (ranks.is_root()) complete_results(results, o.common.output);
  return 0;
}

}  // namespace

void add_step_command(CLI::App& root, CommandList& commands) {
  add_command<StepCommandOptions>(
      root, commands, "step",
      "The TP-k decode step for every (k, batch, context), timed per term and per rank, to HDF5",
      [](CLI::App& app, StepCommandOptions& o) {
        add_step_cli_options(app, o.common);
        app.add_flag("--no-comm", o.common.step.no_comm,
                     "Skip the collectives: the compute term alone (numerics wrong for k > 1)");
        app.add_flag("--check", o.common.step.check,
                     "Before timing: TP-k logits and tokens against TP-1, NaN/Inf per layer");
        app.add_flag("--no-timers", o.no_timers,
                     "Turn the cpu backend's per-operation timers off (to measure their cost)");
        app.add_flag("--membw", o.membw, "Also measure memory read bandwidth first and report weight_GBps against it");
      },
      run_step);
}

}  // namespace tpb
