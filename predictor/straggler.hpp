#pragma once
// The straggler term of a TP-k step, read where it happens: inside the
// collectives. Every rank leaves an all-reduce together, so a rank that
// computes longer waits less; per rank, its time inside the collectives
// against the group's tells how much later than the fastest rank it arrived.
// Reported beside the verdict, never a gate: the anchors are priced on the
// group's slowest rank already (round_evaluation.hpp).
#include <string>
#include <vector>

#include "predictor/round_interval.hpp"

namespace tpb {

// One round of one TP degree: per grid cell, the measured t_step and each
// rank's time inside the collectives (≥ 2 ranks, the same count in every cell).
struct StragglerRound {
  std::vector<double> step_us;                       // per cell
  std::vector<std::vector<double>> rank_collective_us;  // per cell, per rank
};

struct RankSlowdown {
  int rank = 0;                // in the TP group (group 0's rank r is world rank r)
  RoundInterval slowdown_pct;  // per round: mean over cells of (max_j w_j − w_rank) / t_step × 100
};

struct StragglerTerm {
  // Per round: mean over cells of (mean_i w_i − min_i w_i) / t_step × 100,
  // i.e. E[max over ranks] − mean of the compute between collectives: what
  // waiting for the slowest rank added to the step.
  RoundInterval straggler_pct;
  std::vector<RankSlowdown> ranks;
  // A rank slower than the others across rounds: its slowdown's lower bound
  // exceeds half the kill switch; -1 when no rank is.
  int systematic_rank = -1;
};

// Intervals at `alpha` (median_order_statistic_interval). `rounds` non-empty.
StragglerTerm straggler_term(const std::vector<StragglerRound>& rounds, double alpha, double kill_switch_pct);

}  // namespace tpb
