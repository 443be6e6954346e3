#include "mpi_bench/pipeline/round_visit.hpp"

#include <chrono>

#include "mpi_bench/host_load.hpp"

namespace tpb {
namespace {

GatheredPoint run_condition(StudyRuntime& rt, TpGroups& groups, const RoundCondition& c, const StepOptions& options,
                            InSituCollectives in_situ, PointState state) {
  StepOptions condition_options = options;
  condition_options.no_comm = c.kind == RoundKind::step_nocomm;
  Communicator* group = c.kind == RoundKind::replay ? nullptr : groups.at(c.k).get();  // a replay runs on every rank
  return run_point_everywhere(rt, group, {c.k, c.batch, c.context}, condition_options, in_situ, state);
}

void append(std::vector<double>& to, const std::vector<double>& values) {
  to.insert(to.end(), values.begin(), values.end());
}

void append_samples(RoundRecords& records, std::size_t index, const GatheredPoint& point) {
  const RoundCondition& c = records.conditions[index];
  append(records.t_rank_us[index], point.all_ranks_t_rank_us);
  if (is_replay_anchor(c)) append(records.t_host_us[index], point.all_ranks_t_host_us);
  if (has_collective_samples(c)) append(records.t_collective_us[index], point.all_ranks_collective_us);
}

}  // namespace

RoundRecords start_round_records(RoundsPhase phase, const std::vector<RoundCondition>& conditions,
                                 const ShardResidency& residency, std::uint64_t order_seed, int iterations,
                                 int ranks) {
  RoundRecords records;
  records.phase = phase;
  records.conditions = conditions;
  records.order_seed = order_seed;
  records.iterations = iterations;
  records.t_rank_us.resize(conditions.size());
  records.t_host_us.resize(conditions.size());
  records.t_collective_us.resize(conditions.size());
  records.columns.assign(conditions.size(), ranks);
  records.residency = residency.description();
  records.block_of = residency.block_of;
  return records;
}

GatheredPoint run_round_visit(StudyRuntime& rt, TpGroups& groups, const std::vector<RoundCondition>& conditions,
                              const ShardResidency& residency, const StepOptions& options, InSituCollectives in_situ,
                              const VisitPlace& place, RoundRecords* records) {
  const RoundCondition& c = conditions.at(place.condition);
  release_unplanned_shards(rt, residency, conditions, c);
  const CpuTimes before = read_cpu_times();
  const double start_us = unix_time_us();
  const auto visit_start = std::chrono::steady_clock::now();
  GatheredPoint visit = run_condition(rt, groups, c, options, in_situ,
                                      residency.keep_point_states ? PointState::kept : PointState::rebuilt);
  if (records) {
    const double duration_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - visit_start).count();
    append_samples(*records, place.condition, visit);
    records->visits.push_back({static_cast<int>(place.condition), place.round, place.execution_index, start_us,
                               duration_us, steal_pct_between(before, read_cpu_times()), load_average_1m()});
  }
  return visit;
}

}  // namespace tpb
