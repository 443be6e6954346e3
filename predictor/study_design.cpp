#include "predictor/study_design.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "predictor/json_field.hpp"

namespace tpb {

using nlohmann::ordered_json;

int parse_rounds(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 6)
    throw UsageError(fmt::format("--rounds: '{}' is not a number of rounds (a study runs a fixed N, e.g. 80)", text));
  const int rounds = std::stoi(text);
  if (rounds < 1) throw UsageError(fmt::format("--rounds: {} is below 1", rounds));
  return rounds;
}

RoundsDesign make_rounds_design(int rounds, double time_budget_s, std::uint64_t seed, double kill_switch_pct) {
  if (!(time_budget_s >= 0))
    throw UsageError(fmt::format("--time-budget: {} s is negative (0 means no budget)", time_budget_s));
  RoundsDesign design;
  design.rounds = rounds;
  design.time_budget_s = time_budget_s;
  design.order_seed = seed;
  design.rule.kill_switch_pct = kill_switch_pct;
  validate_decision_rule(design.rule);
  return design;
}

std::string decision_rule_text(const DecisionRule& rule) {
  return fmt::format(
      "Rule version {}. Per cell (form, k, batch, context): d = ln(measured t_step / prediction on the anchors "
      "measured in the same round, each the slowest of the group's ranks), one per round; the estimate is the "
      "median of d over rounds (the typical step). Margin delta = ln(1 + {:g} %). Intervals: the sign test's "
      "distribution-free interval for a median, on the medians of consecutive blocks of {} rounds. A cell HOLDS "
      "when its 1 - 2*alpha interval lies inside (-delta, delta), and is FALSIFIED when its 1 - alpha/m interval "
      "lies outside [-delta, delta], alpha = {:g}, m = the form's cells over every k (each form its own family). A "
      "form at k HOLDS when every cell holds and the A/A control (TP-1 step against TP-1 --no-comm on every rank) "
      "holds, is FALSIFIED when some cell is, and is INCONCLUSIVE otherwise. A fixed design: N rounds, no interim "
      "look; a time budget only ends a study early, and says so.",
      rule.version, rule.kill_switch_pct, rule.block_rounds, rule.family_alpha);
}

ordered_json rounds_design_json(const RoundsDesign& d) {
  ordered_json out = {{"rule", decision_rule_text(d.rule)},
                      {"rule_version", d.rule.version},
                      {"rounds", d.rounds},
                      {"interim_looks", 0},
                      {"time_budget_s", d.time_budget_s},
                      {"order_seed", d.order_seed},
                      {"kill_switch_pct", d.rule.kill_switch_pct},
                      {"family_alpha", d.rule.family_alpha},
                      {"block_rounds", d.rule.block_rounds},
                      {"anchor_convention", kAnchorConvention}};
  if (d.plan) out["round_plan"] = round_plan_json(*d.plan);
  return out;
}

namespace {
template <typename T>
T design_field(const ordered_json& section, const char* name) {
  return json_field<T>(section, name, "registration: decision");
}
}  // namespace

RoundsDesign parse_rounds_design(const ordered_json& s) {
  RoundsDesign d;
  d.rule.version = design_field<int>(s, "rule_version");
  validate_decision_rule(d.rule);  // an older rule is refused before its fields are read
  d.rounds = design_field<int>(s, "rounds");
  d.time_budget_s = design_field<double>(s, "time_budget_s");
  d.order_seed = design_field<std::uint64_t>(s, "order_seed");
  d.rule.kill_switch_pct = design_field<double>(s, "kill_switch_pct");
  d.rule.family_alpha = design_field<double>(s, "family_alpha");
  d.rule.block_rounds = design_field<int>(s, "block_rounds");
  const auto anchors = design_field<std::string>(s, "anchor_convention");
  if (anchors != kAnchorConvention)
    throw UsageError(fmt::format("registration: anchor convention '{}' is not one this tool judges ({})", anchors,
                                 kAnchorConvention));
  if (design_field<int>(s, "interim_looks") != 0)
    throw UsageError("registration: a design with interim looks is not one this tool judges");
  if (s.contains("round_plan")) d.plan = parse_round_plan(s.at("round_plan"));
  validate_decision_rule(d.rule);
  if (d.rounds < 1) throw UsageError(fmt::format("registration: {} rounds", d.rounds));
  return d;
}

std::string design_claims_difference(const RoundsDesign& sealed, const DesignClaims& c) {
  std::string out;
  // The first claim given that differs, its value in `unit`.
  const auto claim = [&out](const char* flag, const auto& claimed, const auto& registered, const char* unit) {
    if (out.empty() && claimed && *claimed != registered)
      out = fmt::format("{}: {}{} differs from the registered {}{}; the design and decision rule are fixed at "
                        "registration",
                        flag, *claimed, unit, registered, unit);
  };
  claim("--rounds", c.rounds, sealed.rounds, "");
  claim("--time-budget", c.time_budget_s, sealed.time_budget_s, " s");
  claim("--seed", c.seed, sealed.order_seed, "");
  claim("--kill-switch", c.kill_switch_pct, sealed.rule.kill_switch_pct, " %");
  claim("--alpha", c.family_alpha, sealed.rule.family_alpha, "");
  return out;
}

}  // namespace tpb
