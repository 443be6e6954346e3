#pragma once
// One visit of a round, shared by the calibration's rounds and the
// measurement's: every rank runs the condition at once, and world rank 0
// keeps its samples and the host's state around it (steal time, load).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "mpi_bench/pipeline/shard_residency.hpp"
#include "mpi_bench/pipeline/study_runtime.hpp"
#include "results/round_records.hpp"

namespace tpb {

// Each TP degree's group communicator of this rank (1: every rank its own group).
using TpGroups = std::map<int, std::unique_ptr<Communicator>>;

// Rank 0's empty records of rounds over `conditions`.
RoundRecords start_round_records(RoundsPhase phase, const std::vector<RoundCondition>& conditions,
                                 const ShardResidency& residency, std::uint64_t order_seed, int iterations,
                                 int ranks);

// Where a visit falls: its condition's index, its round, its place in the
// phase's execution order.
struct VisitPlace {
  std::size_t condition = 0;
  int round = 0;
  int execution_index = 0;
};

// Collective. Releases the shards the residency does not keep, runs the
// visit (a TP-k step or its --no-comm ablation on its group, or a shard
// replay on every rank; its point's state kept for the next visit where the
// residency keeps states) and, when `records` is non-null (rank 0), appends
// its samples and visit record.
GatheredPoint run_round_visit(StudyRuntime& runtime, TpGroups& groups, const std::vector<RoundCondition>& conditions,
                              const ShardResidency& residency, const StepOptions& options, InSituCollectives in_situ,
                              const VisitPlace& place, RoundRecords* records);

}  // namespace tpb
