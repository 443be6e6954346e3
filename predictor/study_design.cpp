#include "predictor/study_design.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpb {

using nlohmann::ordered_json;

std::vector<int> checkpoints_between(int min_rounds, int max_rounds) {
  std::vector<int> checkpoints;
  for (int rounds = min_rounds; rounds < max_rounds; rounds *= 2) checkpoints.push_back(rounds);
  checkpoints.push_back(max_rounds);
  return checkpoints;
}

void parse_rounds_range(const std::string& text, int* min_rounds, int* max_rounds) {
  const auto bad = [&text](const char* why) {
    return UsageError(fmt::format("--rounds: '{}' {} (expected MIN:MAX, e.g. 10:20)", text, why));
  };
  const std::size_t colon = text.find(':');
  const std::string low = colon == std::string::npos ? text : text.substr(0, colon);
  const std::string high = colon == std::string::npos ? text : text.substr(colon + 1);
  const auto number = [&bad](const std::string& part) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6)
      throw bad("is not a range of round counts");
    return std::stoi(part);
  };
  *min_rounds = number(low);
  *max_rounds = number(high);
  if (*min_rounds < 2) throw bad("has MIN below 2 (an interval needs rounds)");
  if (*max_rounds < *min_rounds) throw bad("has MAX below MIN");
}

RoundsDesign make_rounds_design(int min_rounds, int max_rounds, double time_budget_s, std::uint64_t seed,
                                double kill_switch_pct) {
  if (!(time_budget_s >= 0))
    throw UsageError(fmt::format("--time-budget: {} s is negative (0 means no budget)", time_budget_s));
  RoundsDesign design;
  design.min_rounds = min_rounds;
  design.max_rounds = max_rounds;
  design.time_budget_s = time_budget_s;
  design.order_seed = seed;
  design.rule.kill_switch_pct = kill_switch_pct;
  design.rule.checkpoints = checkpoints_between(min_rounds, max_rounds);
  design.rule.bootstrap.seed = seed;
  validate_decision_rule(design.rule);
  return design;
}

std::string decision_rule_text(int version) {
  if (version == 2)
    return "Per (form, k): the median over rounds of the per-round MAPE (paired: the form on the anchors measured "
           "in the same round), with its distribution-free order-statistic interval [L, U] at alpha = family_alpha "
           "/ (judged cells x checkpoints). FALSIFIED when L > kill switch, HOLDS when U < kill switch, otherwise "
           "INCONCLUSIVE with its reason; gated by the A/A, no_speedup, power and same-node controls.";
  return "Per (form, k) and grid cell: the median over rounds of ln(measured t_step / paired prediction), the "
         "prediction evaluated on the anchors measured in the same round; the cell's error is exp(median) - 1 and "
         "the form's error E the mean over cells of |cell error|. [L, U] is the percentile interval of E from "
         "resampling whole rounds, at the alpha of the look: the family alpha spent over the checkpoints by the "
         "O'Brien-Fleming-type Lan-DeMets function (the look that ends the study spends what is left), split "
         "over the judged cells (Bonferroni; at k = 1 ideal, replay and no_speedup count once). FALSIFIED when "
         "L > kill switch, HOLDS when U < kill switch, otherwise INCONCLUSIVE with its reason. A failed A/A at "
         "k = 1 withholds HOLDS everywhere and leaves FALSIFIED only where L > kill switch + the A/A's U; a k "
         "whose no_speedup is not FALSIFIED or whose +-2K power check fails cannot HOLD; paired and "
         "calibration-time outcomes that are opposite read INCONCLUSIVE (drift)" +
         std::string(version >= 5   ? ", the calibration-time interval also resampling the level the paired "
                                      "predictions moved through, as the difference between two rounds' levels"
                     : version == 4 ? ", the calibration-time interval also resampling the level the paired "
                                      "predictions moved through over the rounds"
                                    : "") +
         ". The same-node control localizes (the straggler term) and never gates.";
}

void apply_round_plan(RoundsDesign& design, const RoundPlan& plan) {
  design.plan = plan;
  design.rule.checkpoints = checkpoints_between(design.min_rounds, plan.planned_rounds);
  validate_decision_rule(design.rule);
}

ordered_json rounds_design_json(const RoundsDesign& d) {
  ordered_json out = {{"rule", decision_rule_text(d.rule.version)},
                      {"rule_version", d.rule.version},
                      {"min_rounds", d.min_rounds},
                      {"max_rounds", d.max_rounds},
                      {"time_budget_s", d.time_budget_s},
                      {"order_seed", d.order_seed},
                      {"kill_switch_pct", d.rule.kill_switch_pct},
                      {"family_alpha", d.rule.family_alpha},
                      {"alpha_spending", d.rule.version == 2 ? "bonferroni over checkpoints" : "obrien_fleming"},
                      {"checkpoints", d.rule.checkpoints},
                      {"bootstrap_resamples", d.rule.bootstrap.resamples},
                      {"bootstrap_block_rounds", d.rule.bootstrap.block_rounds},
                      {"bootstrap_seed", d.rule.bootstrap.seed}};
  if (d.plan) out["round_plan"] = round_plan_json(*d.plan);
  return out;
}

namespace {
template <typename T>
T design_field(const ordered_json& section, const char* name) {
  if (!section.contains(name)) throw UsageError(fmt::format("registration: decision lacks field '{}'", name));
  try {
    return section.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw UsageError(fmt::format("registration: decision field '{}' has the wrong type", name));
  }
}
}  // namespace

RoundsDesign parse_rounds_design(const ordered_json& s) {
  RoundsDesign d;
  d.min_rounds = design_field<int>(s, "min_rounds");
  d.max_rounds = design_field<int>(s, "max_rounds");
  d.time_budget_s = design_field<double>(s, "time_budget_s");
  d.order_seed = design_field<std::uint64_t>(s, "order_seed");
  d.rule.kill_switch_pct = design_field<double>(s, "kill_switch_pct");
  d.rule.family_alpha = design_field<double>(s, "family_alpha");
  d.rule.checkpoints = design_field<std::vector<int>>(s, "checkpoints");
  d.rule.bootstrap.resamples = design_field<int>(s, "bootstrap_resamples");
  d.rule.bootstrap.block_rounds = design_field<int>(s, "bootstrap_block_rounds");
  d.rule.bootstrap.seed = design_field<std::uint64_t>(s, "bootstrap_seed");
  // A registration of version 2 sealed its rule before the field existed.
  d.rule.version = s.contains("rule_version") ? design_field<int>(s, "rule_version") : 2;
  if (s.contains("round_plan")) d.plan = parse_round_plan(s.at("round_plan"));
  validate_decision_rule(d.rule);
  return d;
}

std::string design_claims_difference(const RoundsDesign& sealed, const DesignClaims& c) {
  const std::string fixed = "; the design and decision rule are fixed at registration";
  if ((c.min_rounds && *c.min_rounds != sealed.min_rounds) || (c.max_rounds && *c.max_rounds != sealed.max_rounds))
    return fmt::format("--rounds: {}:{} differs from the registered {}:{}{}", c.min_rounds.value_or(sealed.min_rounds),
                       c.max_rounds.value_or(sealed.max_rounds), sealed.min_rounds, sealed.max_rounds, fixed);
  if (c.time_budget_s && *c.time_budget_s != sealed.time_budget_s)
    return fmt::format("--time-budget: {} s differs from the registered {} s{}", *c.time_budget_s,
                       sealed.time_budget_s, fixed);
  if (c.seed && *c.seed != sealed.order_seed)
    return fmt::format("--seed: {} differs from the registered {}{}", *c.seed, sealed.order_seed, fixed);
  if (c.kill_switch_pct && *c.kill_switch_pct != sealed.rule.kill_switch_pct)
    return fmt::format("--kill-switch: {} % differs from the registered {} %{}", *c.kill_switch_pct,
                       sealed.rule.kill_switch_pct, fixed);
  if (c.family_alpha && *c.family_alpha != sealed.rule.family_alpha)
    return fmt::format("--alpha: {} differs from the registered {}{}", *c.family_alpha, sealed.rule.family_alpha,
                       fixed);
  return "";
}

}  // namespace tpb
