#pragma once
// Judging a study measured in rounds under rule version 6
// (decision_rule.hpp). Every round re-measures the TP-k cells and the
// anchors the forms are built from (t_compute(1), t_replay(k), t_host(k)) on
// every rank. A TP-k step waits for its slowest rank, so each form is priced
// per round on the slowest of the group's ranks for each anchor
// (kAnchorConvention), and judged on d = ln(measured / that prediction).
// The A/A runs on every rank and gates; every other control is reported.
// Pure function of plain data, so the verdict stage and the tests compute
// the same thing. A form whose prediction is fixed for the launch
// (ModelForm::absolute) is judged on its sealed prediction at the launch's
// level instead (judge_absolute_cell).
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "predictor/decision_controls.hpp"
#include "predictor/decision_rule.hpp"
#include "predictor/registration.hpp"
#include "predictor/straggler.hpp"
#include "predictor/study_design.hpp"
#include "predictor/verdict.hpp"

namespace tpb {

using DegreeCell = std::tuple<int, int, int>;  // (k, batch, context)
using GridCell = std::tuple<int, int>;         // (batch, context)

// One round's measurements. A per-rank vector holds each rank's median over
// its visit's iterations, indexed by world rank; a TP-k group is ranks
// 0..k−1 (group 0, the one measured).
struct RoundObservation {
  // The TP-k step: per iteration the slowest rank of group 0, median over iterations.
  std::map<DegreeCell, double> step_us;
  std::map<GridCell, std::vector<double>> step1_rank_us;     // TP-1 on every rank at once: the A/A, same-node
  std::map<GridCell, std::vector<double>> compute1_rank_us;  // TP-1 --no-comm: t_compute(1), and t_replay(1)
  std::map<DegreeCell, std::vector<double>> replay_rank_us;  // k > 1: the shard replay, t_replay(k)
  std::map<DegreeCell, std::vector<double>> host_rank_us;    // t_host(k): the replay anchor's host issue time
  std::map<DegreeCell, std::vector<double>> nocomm_rank_us;  // k > 1: the TP-k step with its collectives ablated
  // k > 1, where the backend timed them: each rank's time inside the step's
  // collectives. Every rank leaves a collective together, so the rank that
  // waits least is the slowest.
  std::map<DegreeCell, std::vector<double>> rank_collective_us;
};

// The slowest of ranks 0..k−1 in `per_rank` (≥ k entries).
double group_max(const std::vector<double>& per_rank, int k);

// The sealed cell's inputs with this round's anchors in place, each the
// slowest of the group's ranks. tpb::Error when the round lacks one.
FormInputs paired_inputs(const CellInputs& sealed, const RoundObservation& round);

// What `form` predicts for cell (k, b, c) in `round`: on the round's anchors,
// or for an absolute form the sealed prediction.
Prediction round_prediction(const Registration& r, const ModelForm& form, const DegreeCell& cell,
                            const RoundObservation& round);

// ℓ_r of cell (k, b, c): ln(the round's t_compute(1) anchor, the slowest of
// the group's ranks / the sealed one). The level an absolute form is judged at.
double round_level(const Registration& r, const DegreeCell& cell, const RoundObservation& round);

// m: a form's cells over every k (its family).
int form_family_cells(const Grid& grid);

struct FormKVerdict {
  std::string form;
  int k = 1;
  Outcome outcome = Outcome::inconclusive;  // the form at k (NOT_APPLICABLE when the backend cannot measure a term)
  std::string not_applicable_reason;
  bool absolute = false;                    // judged at the launch's level (ModelForm::absolute)
  std::string outside_source;               // an outside form: "FILE (sha256 …)"; empty for a built-in one
  FormAtK judged;                           // empty cells when NOT_APPLICABLE
  // Per cell (grid order), the calibration-time forecast's error, (exp(median
  // ln(measured / sealed prediction)) − 1) × 100: drift, reported beside.
  std::vector<double> sealed_error_pct;
  // The measured term that departs most from the form's share of it
  // (round_localization.hpp); absent where no term was measured.
  std::optional<Localization> localized;
};

struct RoundsEvaluation {
  DecisionRule rule;
  int rounds = 0;
  int blocks = 0;
  int family_cells = 0;   // m of every form
  AaControl aa;
  std::optional<RoundInterval> same_node_spread_pct;  // the widest cell's, at 1 − 2α; ≥ 2 ranks
  std::map<int, StragglerTerm> straggler;             // per k > 1 whose collectives were timed on every rank
  std::vector<FormKVerdict> cells;                    // forms in registered order, k in grid order
};

// tpb::Error when a round lacks a cell or an anchor of the registered grid.
RoundsEvaluation evaluate_rounds(const Registration& registration, const std::vector<RoundObservation>& rounds);

}  // namespace tpb
