#pragma once
// A campaign's pooled verdict over its launches' rule-6 evaluations
// (round_evaluation.hpp): per (form, k) each cell pooled with pool_cell over
// the launches' medians of d, the A/A pooled per (rank, batch, context) as a
// family of one, and the form at k judged by judge_form_at_k with the pooled
// A/A as its gate. A form NOT_APPLICABLE in any launch is NOT_APPLICABLE.
// Missing launches are named; the verdict is then incomplete.
#include <string>
#include <vector>

#include "predictor/campaign_design.hpp"
#include "predictor/campaign_pooling.hpp"
#include "predictor/round_evaluation.hpp"

namespace tpb {

struct LaunchEvaluation {
  int index = 0;  // 1..L
  RoundsEvaluation evaluation;
};

struct PooledFormK {
  std::string form;
  int k = 1;
  Outcome outcome = Outcome::inconclusive;
  std::string not_applicable_reason;
  FormAtK judged;                 // pooled cells (judged.cells[i] is cells[i].judged)
  std::vector<PooledCell> cells;  // grid order (batch-major, as evaluate_rounds)
};

struct PooledAaCell {
  int rank = 0, batch = 0, context = 0;
  PooledCell pooled;
};

struct CampaignVerdict {
  int launches_sealed = 0;        // L
  std::vector<int> counted;       // the launches pooled, in order
  std::vector<int> missing;       // 1..L not pooled
  DecisionRule rule;
  int family_cells = 0;
  bool aa_holds = false;
  bool aa_falsified = false;
  std::vector<PooledAaCell> aa;
  std::vector<PooledFormK> cells;  // forms in registered order, k in grid order
  bool incomplete() const { return !missing.empty(); }
};

// `launches` in index order, at least one, every one evaluated on the same
// registered grid and rule. tpb::Error when two launches disagree on the
// cells they judged.
CampaignVerdict pool_campaign(const CampaignDesign& design, const std::vector<LaunchEvaluation>& launches);

}  // namespace tpb
