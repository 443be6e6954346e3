#pragma once
// The measurement design a study declares before calibration and seals in its
// registration: the N rounds it runs, the time budget that only guards them,
// the seed of the visiting order, the anchor convention and the decision rule
// (decision_rule.hpp). A fixed design: no interim look, and nothing here may
// change after registration (results/custody.hpp refuses it).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "predictor/decision_rule.hpp"
#include "predictor/round_plan.hpp"

namespace tpb {

// Each anchor of a TP-k cell, per round, is the slowest of the group's ranks.
inline constexpr const char* kAnchorConvention = "per_round_group_max";
inline constexpr int kDefaultRounds = 80;

struct RoundsDesign {
  int rounds = kDefaultRounds;       // N: the study runs them all unless the time budget ends it first
  double time_budget_s = 0;          // a guard: ends the study early, and the verdict says so; 0: none
  std::uint64_t order_seed = 20240;  // Fisher–Yates seed of the visiting order (visit_order.hpp)
  DecisionRule rule;
  std::optional<RoundPlan> plan;     // what N can resolve, said before measuring
};

// The rule in words: "falsified_when" in predictions.json, the report and the
// design's "rule" field.
std::string decision_rule_text(const DecisionRule& rule);

// "--rounds N": UsageError naming the value.
int parse_rounds(const std::string& text);

// The design for a declared study. UsageError when the rule is not valid.
RoundsDesign make_rounds_design(int rounds, double time_budget_s, std::uint64_t seed, double kill_switch_pct);

// The registration's "decision_rule" section and back (UsageError naming a
// missing field, or a rule this tool does not judge).
nlohmann::ordered_json rounds_design_json(const RoundsDesign& design);
RoundsDesign parse_rounds_design(const nlohmann::ordered_json& section);

// What a later command claims about the design (each only when given).
struct DesignClaims {
  std::optional<int> rounds{};                // --rounds
  std::optional<double> time_budget_s{};      // --time-budget
  std::optional<std::uint64_t> seed{};        // --seed
  std::optional<double> kill_switch_pct{};    // --kill-switch
  std::optional<double> family_alpha{};       // --alpha
};

// The first claim that differs from the sealed design, as "--rounds: 40
// differs from the registered 80; ..."; empty when every claim matches.
std::string design_claims_difference(const RoundsDesign& sealed, const DesignClaims& claims);

}  // namespace tpb
