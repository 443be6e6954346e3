#pragma once
// What a study's declared rounds can resolve, said before measuring; it
// never changes them. Calibration never runs a TP-k step, so the plan reads a
// proxy of a cell's paired log-ratio: per grid cell, the SD over calibration
// rounds of ln t_replay(k) − ln t_compute(1), each the slowest of the group's
// ranks in its round (two conditions measured a few visits apart, as a TP-k
// step and its anchors are). From the largest of them it gives the half-width
// the rule's intervals will have after N rounds, and so the true errors that
// N can expect to HOLD and to FALSIFY. A normal approximation, and a
// proxy: a guide, reported beside the verdict, never part of it.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/decision_rule.hpp"

namespace tpb {

struct RoundPlanInputs {
  std::vector<double> cell_log_sd;  // the proxy per grid cell (> 0)
  DecisionRule rule;
  int rounds = 0;                   // the declared N
  int family_cells = 1;             // m of the largest family
  double seconds_per_round = 0;     // estimated; 0: unknown
  double time_budget_s = 0;         // 0: none
};

struct RoundPlan {
  int rounds = 0;                   // the declared N, as declared
  int blocks = 0;                   // N / block_rounds
  double spread_log_sd = 0;         // the largest cell's proxy
  bool formed = false;              // enough blocks for both intervals
  double holds_within_pct = 0;      // a true error inside ± this is expected to HOLD
  double falsified_beyond_pct = 0;  // a true error beyond ± this is expected to be FALSIFIED
  double seconds_per_round = 0;
  int budget_rounds = 0;            // rounds the time budget holds; 0 without a budget
  bool exceeds_budget() const { return budget_rounds > 0 && budget_rounds < rounds; }
};

RoundPlan plan_rounds(const RoundPlanInputs& inputs);

nlohmann::ordered_json round_plan_json(const RoundPlan& plan);
RoundPlan parse_round_plan(const nlohmann::ordered_json& section);  // UsageError naming a missing field

// One line for the console and the report.
std::string round_plan_line(const RoundPlan& plan);

}  // namespace tpb
