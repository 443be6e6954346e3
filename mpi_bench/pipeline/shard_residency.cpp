#include "mpi_bench/pipeline/shard_residency.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "collectives/mpi_check.hpp"
#include "predictor/visit_order.hpp"

namespace tpb {

namespace {

// The weight cache a condition draws.
ShardCacheKey shard_of(const RoundCondition& c) { return shard_cache_key(c.k, c.kind == RoundKind::replay); }

// This rank's bytes with every shard `conditions` draw cached, each shard's
// weights taking `shard_bytes(k)`, plus the largest point's other terms
// `other_bytes`.
std::int64_t bytes_with_every_shard(const std::vector<RoundCondition>& conditions,
                                    const std::function<std::int64_t(int k)>& shard_bytes, std::int64_t other_bytes) {
  std::set<ShardCacheKey> shards;
  for (const RoundCondition& c : conditions) shards.insert(shard_of(c));
  std::int64_t bytes = other_bytes;
  for (const ShardCacheKey& shard : shards) bytes += shard_bytes(shard.first);
  return bytes;
}

// The bytes of every decode state `conditions` visit, one per shard and
// (b, c) (a TP-k step and its --no-comm ablation share one), each taking
// `state_bytes(k, b, c)`.
std::int64_t bytes_of_every_state(const std::vector<RoundCondition>& conditions,
                                  const std::function<std::int64_t(int k, int batch, int context)>& state_bytes) {
  std::set<std::tuple<ShardCacheKey, int, int>> points;
  for (const RoundCondition& c : conditions) points.insert({shard_of(c), c.batch, c.context});
  std::int64_t bytes = 0;
  for (const auto& [shard, batch, context] : points) bytes += state_bytes(shard.first, batch, context);
  return bytes;
}

// The bytes one shard's weight tensors take in the backend's weight
// reservation: `weight_bytes` plus each tensor's rounding up to 64 bytes (a
// bound on the tensors of a shard of `config`).
std::int64_t reserved_shard_bytes(const ModelConfig& config, std::int64_t weight_bytes) {
  // embedding, final norm, LM head, RoPE table; per layer two norms, Q|K|V,
  // its bias, O, gate|up, down, router, shared gate, and two per expert
  // (the shared one included).
  const std::int64_t tensors = 4 + std::int64_t{config.num_layers} * (9 + 2 * (config.moe.num_experts + 1));
  return weight_bytes + 64 * tensors;
}

}  // namespace

std::string ShardResidency::description() const {
  if (!every_shard_cached) return "blocks A-B-B-A";
  return keep_point_states ? "every shard and point state cached" : "every shard cached";
}

ShardResidency shard_residency(const std::vector<RoundCondition>& conditions, bool every_shard_cached) {
  ShardResidency out;
  out.every_shard_cached = every_shard_cached;
  if (every_shard_cached) return out;
  std::map<ShardCacheKey, std::size_t> blocks;
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
  const auto state_bytes = [&](int k, int batch, int context) {
    MemorySetup shard = setup;
    shard.tp = k;
    const MemoryTerms terms = memory_terms(rt.config, shard);
    return terms.kv_cache.at(batch, context + 1) + terms.activations.at(batch, context + 1);
  };
  const MemoryEstimate& largest = rt.memory.largest;
  const std::int64_t bytes = bytes_with_every_shard(conditions, shard_bytes, largest.total() - largest.weights);
  // The largest point's state, counted above, becomes every point's.
  const std::int64_t with_states =
      bytes - largest.kv_cache - largest.activations + bytes_of_every_state(conditions, state_bytes);
  // Every rank must visit in the same order and step alike: blocks as soon
  // as one rank needs them, states kept only where every rank holds them.
  int fits[2] = {bytes <= rt.memory.budget.bytes ? 1 : 0, with_states <= rt.memory.budget.bytes ? 1 : 0};
  MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, fits, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  ShardResidency residency = shard_residency(conditions, fits[0] == 1);
  residency.bytes_every_shard = bytes;
  residency.keep_point_states = fits[0] == 1 && fits[1] == 1;
  residency.bytes_every_state = with_states;
  return residency;
}

void reserve_study_weights(StudyRuntime& rt) {
  if (!rt.backend) return;  // --dry-run allocates nothing
  const StudyDeclaration& d = rt.declaration;
  std::vector<RoundCondition> conditions = calibration_conditions(d.grid, d.decision.predict_tp);
  for (const RoundCondition& c : round_conditions(d.grid)) conditions.push_back(c);
  const MemorySetup setup = study_memory_setup(d);
  std::map<int, std::int64_t> shard_bytes;
  for (const RoundCondition& c : conditions) {
    MemorySetup shard = setup;
    shard.tp = c.k;
    shard_bytes[c.k] = reserved_shard_bytes(rt.config, memory_terms(rt.config, shard).weights.fixed);
  }
  const MemoryEstimate& largest = rt.memory.largest;
  const std::int64_t every_shard =
      bytes_with_every_shard(conditions, [&](int k) { return shard_bytes.at(k); }, 0);
  int fits = every_shard + largest.total() - largest.weights <= rt.memory.budget.bytes ? 1 : 0;
  MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  std::int64_t one_shard = 0;
  for (const auto& entry : shard_bytes) one_shard = std::max(one_shard, entry.second);
  const std::int64_t bytes = fits == 1 ? every_shard : one_shard;
  rt.backend->reserve_weights(bytes);
  // Only the cpu backend places its weights itself (a device allocator places its own).
  if (rt.backend->memory_kind() == MemoryKind::host)
    study_progress(rt, fmt::format("weights: {} per rank set aside for {}, one pool every shard is drawn from",
                                   readable_bytes(bytes),
                                   fits == 1 ? "every shard the study draws" : "its largest shard"));
}

std::string residency_line(const std::string& phase, const ShardResidency& residency, const MemoryBudget& budget) {
  if (residency.every_shard_cached && residency.keep_point_states)
    return fmt::format("{}: every shard and point state cached ({} per rank of {}), conditions interleave freely",
                       phase, readable_bytes(residency.bytes_every_state), readable_bytes(budget.bytes));
  if (residency.every_shard_cached)
    return fmt::format("{}: every shard cached ({} per rank of {}), conditions interleave freely; each visit "
                       "rebuilds its point's state: every state cached would need {}",
                       phase, readable_bytes(residency.bytes_every_shard), readable_bytes(budget.bytes),
                       readable_bytes(residency.bytes_every_state));
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
  std::set<ShardCacheKey> kept;
  if (residency.every_shard_cached)
    for (const RoundCondition& c : conditions) kept.insert(shard_of(c));
  else
    kept.insert(shard_of(next));
  for (auto it = rt.shards.begin(); it != rt.shards.end();)
    it = kept.count(it->first) ? std::next(it) : rt.shards.erase(it);
  if (!residency.keep_point_states)
    for (auto& entry : rt.shards) entry.second.states = DecodeStateCache{};
}

}  // namespace tpb
