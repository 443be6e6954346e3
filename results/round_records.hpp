#pragma once
// The study's rounds in the results file (/rounds, named by layout.hpp):
// which conditions a round visits, the order each round visited them in,
// every visit's samples and its host state, and their reduction to the
// per-round observations the verdict judges (round_evaluation.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/round_evaluation.hpp"
#include "results/h5_file.hpp"
#include "results/layout.hpp"

namespace tpb {

struct RoundCondition {
  RoundKind kind = RoundKind::step;
  int k = 1;
  int batch = 0;
  int context = 0;
};

// Every condition a round visits, in condition index order: for each (k, b, c)
// the TP-k step, its --no-comm ablation and, for k > 1, the shard replay
// anchor; then for each (b, c) the TP-1 step when the grid lacks k = 1, and
// TP-1 --no-comm. TP-1 --no-comm is both the anchor t_compute(1) and the
// replay anchor of k = 1: a TP-1 shard is the whole model, so replaying it on
// every rank is the same computation, and measuring it twice would only cost
// time. The A/A and the same-node control are TP-1 itself: every rank runs it
// at once, each in its own group, so every study measures it.
std::vector<RoundCondition> round_conditions(const Grid& grid);

// The calibration's conditions, in condition index order: the shard replay of
// every degree of the grid and of `predicted_tp` (largest first) for each
// (b, c), then TP-1 --no-comm for each (b, c), the anchor t_compute(1).
std::vector<RoundCondition> calibration_conditions(const Grid& grid, const std::vector<int>& predicted_tp);

// Whether the condition keeps every rank's host issue time (t_host_us): the
// replay anchors, k = 1's being TP-1 --no-comm.
bool is_replay_anchor(const RoundCondition& condition);
// Whether the condition keeps each rank's time inside the collectives
// (t_collective_insitu_us): the TP-k steps with k > 1, whose ranks wait for
// each other there.
bool has_collective_samples(const RoundCondition& condition);
std::string round_condition_name(const RoundCondition& condition);  // its /rounds path

struct VisitRecord {
  int condition = 0;
  int round = 0;
  int execution_index = 0;
  double start_unix_us = 0;
  double duration_us = 0;
  double steal_pct = 0;
  double load_avg_1m = 0;
};

// Rank 0's record of the rounds done so far.
struct RoundRecords {
  RoundsPhase phase = RoundsPhase::measure;  // where they are written
  std::vector<RoundCondition> conditions;
  std::uint64_t order_seed = 0;
  std::vector<std::vector<std::size_t>> order;  // per finished round: condition index by position
  std::vector<VisitRecord> visits;              // in execution order
  int iterations = 0;
  // Per condition, rounds × iterations × columns (row-major), a column per
  // world rank, and its column count.
  std::vector<std::vector<double>> t_rank_us;
  std::vector<std::vector<double>> t_host_us;  // replay anchors only
  // TP-k steps, k > 1, laid out as t_rank_us: each rank's time inside the
  // collectives. Complete only where every visit's timed iterations recorded
  // it; otherwise not measured, and neither written nor reduced.
  std::vector<std::vector<double>> t_collective_us;
  std::vector<int> columns;
  std::string stop_reason;
  // How the rounds held the weights: "every shard and point state cached"
  // or "every shard cached" (free interleaving, each point's decode state kept
  // across visits or rebuilt per visit) or "blocks A-B-B-A" (memory allowed
  // one shard at a time); with blocks, each condition's block.
  std::string residency;
  std::vector<std::size_t> block_of;
};

// Rewrites the records' rounds group (/rounds, or /calibration_rounds) from
// `records` (called after every round: a killed study keeps every finished
// round).
void write_round_records(H5File& file, const RoundRecords& records);
bool has_rounds(const H5File& file);
// Why the measurement's rounds ended before the declared N; empty when they all ran.
std::string read_rounds_stop_reason(const H5File& file);

// The stored visiting order (rounds × conditions) and the conditions' names.
std::vector<std::vector<std::size_t>> read_round_order(const H5File& file);
std::vector<std::string> read_round_condition_names(const H5File& file);

// Each finished round reduced (RoundObservation): a TP-k step to the median
// over iterations of group 0's slowest rank (ranks 0..k−1); every other
// condition, and the time inside a TP-k step's collectives, to each rank's
// median over its iterations. UsageError when /rounds does not hold the
// conditions of `grid`.
std::vector<RoundObservation> read_round_observations(const H5File& file, const Grid& grid);

// The same reduction on rank 0's in-memory records (the stopping rule).
std::vector<RoundObservation> round_observations(const RoundRecords& records);

}  // namespace tpb
