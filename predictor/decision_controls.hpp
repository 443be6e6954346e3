#pragma once
// The controls of a study measured in rounds. One gates: the A/A, on every
// rank (TP-1 step against TP-1 --no-comm of the same rank and round), whose
// cells must all HOLD before any form may (an instrument that cannot
// reproduce itself certifies nothing); its cells belong to no family. The
// same-node spread is reported, never a gate.
#include <vector>

#include "predictor/decision_rule.hpp"

namespace tpb {

struct AaCell {
  int rank = 0;
  int batch = 0;
  int context = 0;
  CellJudgement judgement;  // a family of its own cell: HOLDS at 1 − 2α, FALSIFIED at 1 − α
};

struct AaControl {
  bool run = false;      // rounds measured TP-1 on at least one rank
  bool holds = false;    // every A/A cell HOLDS
  bool falsified = false;  // some A/A cell is FALSIFIED: the instrument is biased beyond the margin
  std::vector<AaCell> cells;
  int worst_cell = -1;   // largest |median_log|; −1 when not run
};

// The A/A over `cells` (each one judged already); holds when every cell does.
AaControl aa_control(std::vector<AaCell> cells);

// Per round, the same-node control's spread across ranks, (max − min) /
// median × 100, of TP-1 run on every rank at once; `rank_times_us` is rounds ×
// ranks (≥ 2 ranks). Returns the order-statistic interval of its median.
RoundInterval same_node_spread_interval(const std::vector<std::vector<double>>& rank_times_us, double alpha);

}  // namespace tpb
