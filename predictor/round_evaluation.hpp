#pragma once
// Judging a study measured in rounds. Every round re-measures the TP-k cells
// and the anchors the forms are built from (t_compute(1), t_replay(k),
// t_host(k)); each form is evaluated per round on that round's anchors
// (paired, the primary verdict) and on the sealed calibration numbers
// (beside it). The controls are judged first and gate every cell
// (decision_controls.hpp, cell_verdict.hpp). Pure function of plain data, so
// the verdict stage, the stopping rule and the tests compute the same thing.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "predictor/cell_verdict.hpp"
#include "predictor/decision_controls.hpp"
#include "predictor/registration.hpp"
#include "predictor/study_design.hpp"

namespace tpb {

using DegreeCell = std::tuple<int, int, int>;  // (k, batch, context)
using GridCell = std::tuple<int, int>;         // (batch, context)

// One round's measurements, each the median over its visit's iterations of the
// slowest rank of the measured group.
struct RoundObservation {
  std::map<DegreeCell, double> step_us;     // the TP-k step
  std::map<DegreeCell, double> replay_us;   // anchor t_replay(k): shard replay, rank 0
  std::map<DegreeCell, double> host_us;     // anchor t_host(k): the replay's host issue time, rank 0
  std::map<GridCell, double> compute1_us;   // anchor t_compute(1): TP-1 --no-comm
  // Same-node control: each rank's own TP-1 step, every rank running it at once.
  std::map<GridCell, std::vector<double>> same_node_rank_us;
  // The straggler term of each TP-k step (k > 1): per rank of group 0, the
  // median over the visit's iterations of its time inside the step's
  // collectives. Every rank leaves a collective together, so the rank that
  // waits least is the slowest; absent where the backend did not time them.
  std::map<DegreeCell, std::vector<double>> rank_collective_us;
};

struct FormKVerdict {
  std::string form;
  int k = 1;
  CellVerdict verdict;
};

struct RoundsControls {
  bool aa_run = false;           // k = 1 is in the grid
  bool aa_holds = true;          // ideal and replay at k = 1 HOLD on their paired errors
  bool aa_formed = true;         // every A/A interval has enough rounds to be formed
  bool same_node_run = false;    // the same-node control was measured (≥ 2 ranks)
  RoundInterval same_node_spread_pct;  // the widest cell's spread interval
  bool rank_imbalance = false;
  std::map<int, PowerCheck> power;          // per k (≥ 2 rounds)
  std::map<int, Outcome> no_speedup;        // per k: its interval outcome before gates
  std::vector<int> unpowered_k;
};

struct RoundsEvaluation {
  int rounds = 0;
  int judged_cells = 0;  // applicable (form, k) cells: the Bonferroni count
  double alpha = 0;      // per interval
  RoundsControls controls;
  std::vector<FormKVerdict> cells;  // forms in model_forms() order, k in grid order
};

// The form `form` on `sealed` calibration inputs with this round's anchors in place.
FormInputs paired_inputs(const CellInputs& sealed, const RoundObservation& round);

// tpb::Error when a round lacks a cell or an anchor of the registered grid.
RoundsEvaluation evaluate_rounds(const Registration& registration, const RoundsDesign& design,
                                 const std::vector<RoundObservation>& rounds);

}  // namespace tpb
