#pragma once
// Judging a study measured in rounds. Every round re-measures the TP-k cells
// and the anchors the forms are built from (t_compute(1), t_replay(k),
// t_host(k)); each form is evaluated per round on that round's anchors
// (paired, the primary verdict) and on the sealed calibration numbers
// (beside it). The controls are judged first and gate every cell
// (decision_controls.hpp, cell_verdict.hpp). Pure function of plain data, so
// the verdict stage, the stopping rule and the tests compute the same thing.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "predictor/cell_verdict.hpp"
#include "predictor/decision_controls.hpp"
#include "predictor/form_applicability.hpp"
#include "predictor/registration.hpp"
#include "predictor/straggler.hpp"
#include "predictor/verdict.hpp"
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
  // The TP-k step with its collectives ablated (k > 1), for localizing: the
  // median over iterations of its fastest rank, as no rank waits for another.
  std::map<DegreeCell, double> nocomm_fastest_us;
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
  // The measured term that departs most from the form's share of it
  // (round_localization.hpp); absent where no term was measured in the rounds.
  std::optional<Localization> localized;
};

struct RoundsControls {
  bool aa_run = false;           // k = 1 is in the grid
  bool aa_holds = true;          // the A/A cells at k = 1 HOLD on their paired errors
  bool aa_formed = true;         // every A/A interval has enough rounds to be formed
  double aa_upper_pct = 0;       // the A/A's upper error bound
  bool same_node_run = false;    // the same-node control was measured (≥ 2 ranks)
  RoundInterval same_node_spread_pct;  // the widest cell's spread interval
  bool rank_imbalance = false;   // version 2's gate; never set under version 3
  std::map<int, PowerCheck> power;          // per k (≥ 2 rounds)
  std::map<int, Outcome> no_speedup;        // per k: its interval outcome before gates
  std::vector<int> unpowered_k;
};

struct RoundsEvaluation {
  int rule_version = kDecisionRuleVersion;
  int rounds = 0;
  bool final_look = true;  // this look spends all the α not spent before it
  int judged_cells = 0;    // the α family: applicable (form, k) cells, each distinct prediction once
  double alpha = 0;        // per interval
  RoundsControls controls;
  std::vector<FormKVerdict> cells;  // forms in registered_forms() order, k in grid order
  std::map<int, StragglerTerm> straggler;  // per k > 1 whose collectives were timed on every rank
};

// The form `form` on `sealed` calibration inputs with this round's anchors in place.
FormInputs paired_inputs(const CellInputs& sealed, const RoundObservation& round);

// Whether (form, k) joins the α family. At k = 1 `ideal`, `replay` and
// `no_speedup` are one prediction (a TP-1 shard is the whole model, and no
// collective runs), so under version 3 only `ideal` counts there; the other
// two share its verdict.
bool counted_in_family(int rule_version, std::string_view form, int k);

// The size of the α family of a study over degrees `tp` on `backend`: the
// applicable (form, k) cells of the registered `forms` that counted_in_family
// admits (`transfer` joins the family only where it was registered).
int family_cell_count(int rule_version, BackendKind backend, const std::vector<int>& tp,
                      const std::vector<ModelForm>& forms);

// The look after `rounds.size()` rounds; `final_look` when it ends the study
// (the verdict stage judges the last look of a file as final: it spends what
// earlier looks left). tpb::Error when a round lacks a cell or an anchor of
// the registered grid.
RoundsEvaluation evaluate_rounds(const Registration& registration, const RoundsDesign& design,
                                 const std::vector<RoundObservation>& rounds, bool final_look = true);

}  // namespace tpb
