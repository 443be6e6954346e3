#pragma once
// Which weight shards a study holds at once. Rounds interleave their
// conditions freely only while every shard a rank draws stays in its weight
// cache. When memory cannot hold them all, the conditions are grouped by
// shard into blocks, one shard is held at a time, and the blocks alternate
// A-B-B-A across rounds (predictor/visit_order.hpp), so that a drift linear
// in time reaches every block alike.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mpi_bench/pipeline/study_runtime.hpp"
#include "results/round_records.hpp"

namespace tpb {

struct ShardResidency {
  bool every_shard_cached = true;
  std::int64_t bytes_every_shard = 0;  // this rank, every shard cached, at the grid's largest point
  // Whether every point's decode state stays cached beside every shard, so
  // that a visit runs its timed steps and nothing else (DecodeStateCache);
  // otherwise each visit builds its state and releases it.
  bool keep_point_states = false;
  std::int64_t bytes_every_state = 0;  // this rank, every shard and every point's state cached
  std::vector<std::size_t> block_of;   // per condition, with blocks only: blocks numbered in ShardCacheKey order
  // "every shard and point state cached", "every shard cached" or "blocks A-B-B-A"
  std::string description() const;
};

// Pure: the residency of `conditions`, in blocks unless every shard is cached.
ShardResidency shard_residency(const std::vector<RoundCondition>& conditions, bool every_shard_cached);

// Collective: this study's residency for `conditions`, from the memory
// estimate of every shard they draw against each rank's budget; blocks as
// soon as one rank cannot hold them all, and point states kept only where
// every rank can hold them beside every shard.
ShardResidency plan_shard_residency(const StudyRuntime& runtime, const std::vector<RoundCondition>& conditions);

// The progress line of a phase ("calibrate", "measure"): how its rounds hold
// the weights, and the bytes that decided it.
std::string residency_line(const std::string& phase, const ShardResidency& residency, const MemoryBudget& budget);

// The visiting order of `rounds` rounds from `seed`: round_visit_orders when
// every shard is cached, blocked_round_orders otherwise.
std::vector<std::vector<std::size_t>> residency_visit_orders(const ShardResidency& residency,
                                                             std::size_t conditions, int rounds, std::uint64_t seed);

// Before a visit: releases every cached shard that the residency does not
// keep (with blocks, all but this condition's; otherwise those that no
// condition of the phase draws), and every kept point state unless the
// residency keeps them, so a rank never holds more than planned.
void release_unplanned_shards(StudyRuntime& runtime, const ShardResidency& residency,
                              const std::vector<RoundCondition>& conditions, const RoundCondition& next);

// Collective, once per study process: sets aside on the backend the weights
// of every shard the study's calibration and measurement draw, when every
// rank can hold them all at once, else of its largest shard (Backend::
// reserve_weights). Every shard then comes from one pool of memory.
void reserve_study_weights(StudyRuntime& runtime);

}  // namespace tpb
