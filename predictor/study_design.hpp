#pragma once
// The measurement design a study declares before calibration and seals in its
// registration: how many rounds (MIN:MAX), the time budget, the seed of the
// visiting order, and the decision rule with its checkpoints and α. Nothing
// here may change after registration (results/custody.hpp refuses it).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/decision_rule.hpp"
#include "predictor/round_plan.hpp"

namespace tpb {

struct RoundsDesign {
  int min_rounds = 10;          // the first checkpoint
  int max_rounds = 20;          // --rounds' MAX: the planned rounds never exceed it
  double time_budget_s = 0;     // measurement rounds stop at the first checkpoint past it; 0: none
  std::uint64_t order_seed = 20240;  // Fisher–Yates seed of the visiting order (visit_order.hpp)
  DecisionRule rule;            // kill switch, family α, checkpoints (the last: the planned N), resampling
  std::optional<RoundPlan> plan;  // version 3: the power analysis that chose N
};

// The rule of `version` in words: "falsified_when" in predictions.json, the
// report and the design's "rule" field.
std::string decision_rule_text(int version);

// Seals `plan` into the design: checkpoints MIN, 2·MIN, … below the planned
// N, then N.
void apply_round_plan(RoundsDesign& design, const RoundPlan& plan);

// Checkpoints MIN, 2·MIN, 4·MIN, ... below MAX, then MAX: few looks (each
// costs α under Bonferroni), the first as early as the design allows.
std::vector<int> checkpoints_between(int min_rounds, int max_rounds);

// "--rounds MIN:MAX" (or a single N for MIN = MAX = N). UsageError naming the value.
void parse_rounds_range(const std::string& text, int* min_rounds, int* max_rounds);

// The design for a declared study: checkpoints from MIN:MAX, the kill switch,
// the bootstrap seed for p_exceeds. UsageError when the rule is not valid.
RoundsDesign make_rounds_design(int min_rounds, int max_rounds, double time_budget_s, std::uint64_t seed,
                                double kill_switch_pct);

// The registration's "decision_rule" section and back (UsageError naming a missing field).
nlohmann::ordered_json rounds_design_json(const RoundsDesign& design);
RoundsDesign parse_rounds_design(const nlohmann::ordered_json& section);

// What a later command claims about the design (each only when given).
struct DesignClaims {
  std::optional<int> min_rounds{}, max_rounds{};  // --rounds MIN:MAX
  std::optional<double> time_budget_s{};          // --time-budget
  std::optional<std::uint64_t> seed{};            // --seed
  std::optional<double> kill_switch_pct{};        // --kill-switch
  std::optional<double> family_alpha{};           // --alpha
};

// The first claim that differs from the sealed design, as "--rounds: 8:16
// differs from the registered 10:20; ..."; empty when every claim matches.
std::string design_claims_difference(const RoundsDesign& sealed, const DesignClaims& claims);

}  // namespace tpb
