// calibrate: everything the predictions may use, measured before any TP-k
// step. Every rank works at once in every measurement, so each device is as
// loaded as it will be under TP-k (shared memory bandwidth, shared node).
// The collective sweeps come first; the step terms follow in randomized rounds.
#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "collectives/communicator_factory.hpp"
#include "collectives/tp_sweep.hpp"
#include "mpi_bench/host_environment.hpp"
#include "mpi_bench/pipeline/roofline_probe.hpp"
#include "mpi_bench/pipeline/round_visit.hpp"
#include "mpi_bench/pipeline/stages.hpp"
#include "mpi_bench/step_output.hpp"
#include "mpi_bench/sweep_output.hpp"
#include "mpi_bench/watchdog.hpp"
#include "results/decision_file.hpp"

namespace tpb {
namespace {

// Powers of two from a quarter of the smallest payload to four times the
// largest: the fit is then interpolated, never extrapolated, at the payloads.
std::vector<std::size_t> sizes_around(const std::vector<std::size_t>& payloads, std::size_t element_bytes) {
  const auto [lo, hi] = std::minmax_element(payloads.begin(), payloads.end());
  const std::size_t min_bytes = std::max(element_bytes, std::bit_floor(std::max<std::size_t>(*lo / 4, 1)));
  const std::size_t max_bytes = std::bit_ceil(*hi * 4);
  return sweep_sizes(min_bytes, max_bytes, 2, 0);
}

// A point measured over rounds: the visits' iterations stacked in execution order.
void append_visit(GatheredPoint& point, const GatheredPoint& visit) {
  if (point.path.empty()) {
    point = visit;
    return;
  }
  append_iterations(point.group0, visit.group0);
  point.attributes.iters = point.group0.iters;
  point.all_ranks_t_rank_us.insert(point.all_ranks_t_rank_us.end(), visit.all_ranks_t_rank_us.begin(),
                                   visit.all_ranks_t_rank_us.end());
}

void sweep_collective(StudyRuntime& rt, ResultsFile* file, Communicator& world, const std::vector<int>& degrees,
                      std::string_view under, const CollectiveSpec& spec, const std::vector<std::size_t>& payloads) {
  const DataType type = comm_datatype(rt.backend->storage_type(TensorRole::activation));
  SweepOptions options;
  options.sizes_bytes = sizes_around(payloads, element_size(type));
  options.type = type;
  options.warmup_iters = 5;
  options.iters = rt.declaration.sweep_iters;
  options.check_iters = 1;
  options.on_point = [&spec](const SweepProgress& p) {
    report_progress("study", fmt::format("calibrate: {} sweep k={} bytes={}", spec.name, p.group_size, p.bytes));
  };
  for (int k : degrees) {
    study_progress(rt, fmt::format("calibrate: {} {} sweep k={} ({} .. {} B)", world.backend_name(), spec.name, k,
                                   options.sizes_bytes.front(), options.sizes_bytes.back()));
    const TpSweep tp = run_tp_sweep(world, k, spec, options);
    if (file) {
      write_tp_sweep(file->h5(), tp, fit_sweep(tp), sweep_parameters(options), under);
      file->flush();
    }
  }
}

// t_replay(k) and t_host(k) (the shard shapes of TP-k on one device each, for
// the grid's degrees and those of --predict-tp), and t_compute(1) (TP-1 with
// its collectives ablated, on every rank at once): measured in randomized
// rounds, like the measurement, so that a disturbance of a few seconds
// reaches one round of each term rather than every sample of one. Each
// point is stored once, its iterations the rounds' in execution order.
void calibrate_step_terms(StudyRuntime& rt, ResultsFile* file) {
  const StudyDeclaration& d = rt.declaration;
  const std::vector<RoundCondition> conditions = calibration_conditions(d.grid, d.decision.predict_tp);
  const ShardResidency residency = plan_shard_residency(rt, conditions);
  study_progress(rt, residency_line("calibrate", residency, rt.memory.budget));
  const int rounds = d.calibration_rounds;
  const std::vector<std::vector<std::size_t>> orders =
      residency_visit_orders(residency, conditions.size(), rounds, d.bootstrap_seed);
  TpGroups groups;
  groups[1] = split_into_tp_groups(*rt.world, 1);
  const StepOptions options{.warmup = d.warmup_iters, .iters = d.iters};
  RoundRecords records = start_round_records(RoundsPhase::calibrate, conditions, residency, d.bootstrap_seed,
                                             d.iters, rt.ranks.size);
  std::vector<GatheredPoint> points(conditions.size());
  int execution_index = 0;
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t index : orders[static_cast<std::size_t>(round)]) {
      const RoundCondition& c = conditions[index];
      study_progress(rt, fmt::format("calibrate: round {} of {}, {} k={} b={} c={}", round + 1, rounds,
                                     c.kind == RoundKind::replay ? "replay" : "TP-1 --no-comm", c.k, c.batch,
                                     c.context));
      const GatheredPoint visit = run_round_visit(rt, groups, conditions, residency, options,
                                                  InSituCollectives::measure, {index, round, execution_index++},
                                                  file ? &records : nullptr);
      if (file) append_visit(points[index], visit);
    }
    if (file) {
      records.order.push_back(orders[static_cast<std::size_t>(round)]);
      if (round + 1 == rounds) records.stop_reason = fmt::format("{} calibration rounds", rounds);
      write_round_records(file->h5(), records);
      file->flush();
    }
  }
  if (file)
    for (const GatheredPoint& point : points) write_gathered_point(*file, point);
}

}  // namespace

void calibrate_collective_sweeps(StudyRuntime& rt, ResultsFile* file, Communicator& world,
                                 const std::vector<int>& degrees, std::string_view under) {
  const Workload workload = describe_workload(rt);
  std::vector<std::size_t> ar_payloads, ag_payloads;
  for (int b : rt.declaration.grid.batch) {
    ar_payloads.push_back(static_cast<std::size_t>(b) * workload.hidden_size * workload.bytes_per_element);
    ag_payloads.push_back(static_cast<std::size_t>(b) * workload.vocab_size * workload.bytes_per_element);
  }
  sweep_collective(rt, file, world, degrees, under, all_reduce_spec(), ar_payloads);
  sweep_collective(rt, file, world, degrees, under, all_gather_spec(), ag_payloads);
}

void calibrate_stage(StudyRuntime& rt, ResultsFile* file) {
  const StudyDeclaration& d = rt.declaration;
  const Workload workload = describe_workload(rt);
  const HostEnvironment environment = collect_host_environment();  // collective: every rank's binding
  if (file) {
    write_host_environment(file->h5(), environment);
    write_study_declaration(file->h5(), workload, d.grid);
    // The measurement design, declared before any calibration step; register seals it.
    write_study_design(file->h5(), {.sweep_iters = d.sweep_iters, .calibration_rounds = d.calibration_rounds,
                                    .collective = std::string(to_string(d.collective)),
                                    .calibrated_at = utc_timestamp_us(), .rounds = d.rounds,
                                    .time_budget_s = d.time_budget_s, .memory_budget_bytes = rt.memory.budget.bytes,
                                    .memory_budget_source = rt.memory.budget.source});
    write_model_config(file->h5(), model_config_record(rt.config));  // the same /config as step and replay files
    write_decision_declaration(file->h5(), d.decision);
    file->flush();
  }
  // t_ar_sweep(k, ar_bytes) and the logits all-gather, around the step's
  // payloads, for every k > 1: a group of one rank issues no collective.
  calibrate_collective_sweeps(rt, file, *rt.world, collective_degrees(d.grid.tp), {});

  // `roofline`'s ceilings: a memory bandwidth and a compute peak, every rank
  // at once as the ranks of a step run.
  probe_roofline_ceilings(d.backend, MPI_COMM_WORLD, file ? &file->h5() : nullptr);

  // The step terms last: registration and the first measurement round follow
  // them within a second, and the machine's level moves over seconds
  // (docs/STATISTICS.md), so the sealed anchors stand as near as they can to
  // the rounds they are compared with.
  calibrate_step_terms(rt, file);
}

}  // namespace tpb
