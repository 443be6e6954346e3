#include "mpi_bench/pipeline/shard_residency.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <map>
#include <set>

#include "collectives/mpi_check.hpp"
#include "predictor/visit_order.hpp"

namespace tpb {

ShardKey shard_of(const RoundCondition& c) {
  // At TP-1 the replay shard and every rank's own shard are the whole model.
  return {c.k, c.kind == RoundKind::replay && c.k > 1};
}

std::string ShardResidency::description() const {
  return every_shard_cached ? "every shard cached" : "blocks A-B-B-A";
}

std::int64_t bytes_with_every_shard(const std::vector<RoundCondition>& conditions,
                                    const std::function<std::int64_t(int k)>& shard_bytes, std::int64_t other_bytes) {
  std::set<ShardKey> shards;
  for (const RoundCondition& c : conditions) shards.insert(shard_of(c));
  std::int64_t bytes = other_bytes;
  for (const ShardKey& shard : shards) bytes += shard_bytes(shard.first);
  return bytes;
}

ShardResidency shard_residency(const std::vector<RoundCondition>& conditions, bool every_shard_cached) {
  ShardResidency out;
  out.every_shard_cached = every_shard_cached;
  if (every_shard_cached) return out;
  std::map<ShardKey, std::size_t> blocks;
  for (const RoundCondition& c : conditions) blocks.emplace(shard_of(c), 0);
  std::size_t next = 0;
  for (auto& entry : blocks) entry.second = next++;
  for (const RoundCondition& c : conditions) out.block_of.push_back(blocks.at(shard_of(c)));
  return out;
}

ShardResidency plan_shard_residency(const StudyRuntime& rt, const std::vector<RoundCondition>& conditions) {
  const MemorySetup setup = study_memory_setup(rt.declaration);
  const auto shard_bytes = [&](int k) {
    MemorySetup shard = setup;
    shard.tp = k;
    return memory_terms(rt.config, shard).weights.fixed;
  };
  const MemoryEstimate& largest = rt.memory.largest;
  const std::int64_t bytes = bytes_with_every_shard(conditions, shard_bytes, largest.total() - largest.weights);
  // Every rank must visit in the same order: blocks as soon as one rank needs them.
  int fits = bytes <= rt.memory.budget.bytes ? 1 : 0;
  MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  ShardResidency residency = shard_residency(conditions, fits == 1);
  residency.bytes_every_shard = bytes;
  return residency;
}

std::string residency_line(const std::string& phase, const ShardResidency& residency, const MemoryBudget& budget) {
  if (residency.every_shard_cached)
    return fmt::format("{}: every shard cached ({} per rank of {}), conditions interleave freely", phase,
                       readable_bytes(residency.bytes_every_shard), readable_bytes(budget.bytes));
  return fmt::format("{}: one shard at a time, blocks alternating A-B-B-A: every shard cached would need {} per "
                     "rank, more than some rank may use ({} on rank 0)",
                     phase, readable_bytes(residency.bytes_every_shard), readable_bytes(budget.bytes));
}

std::vector<std::vector<std::size_t>> residency_visit_orders(const ShardResidency& residency,
                                                             std::size_t conditions, int rounds, std::uint64_t seed) {
  if (residency.every_shard_cached) return round_visit_orders(conditions, rounds, seed);
  return blocked_round_orders(residency.block_of, rounds, seed);
}

void release_unplanned_shards(StudyRuntime& rt, const ShardResidency& residency,
                              const std::vector<RoundCondition>& conditions, const RoundCondition& next) {
  std::set<ShardKey> kept;
  if (residency.every_shard_cached)
    for (const RoundCondition& c : conditions) kept.insert(shard_of(c));
  else
    kept.insert(shard_of(next));
  for (auto it = rt.shard_weights.begin(); it != rt.shard_weights.end();)
    it = kept.count(it->first) ? std::next(it) : rt.shard_weights.erase(it);
}

}  // namespace tpb
