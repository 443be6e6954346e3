#include "predictor/decision_rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "predictor/alpha_spending.hpp"

namespace tpb {

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::holds: return "HOLDS";
    case Outcome::falsified: return "FALSIFIED";
    case Outcome::inconclusive: return "INCONCLUSIVE";
    case Outcome::not_applicable: return "NOT_APPLICABLE";
  }
  return "?";
}

std::string_view to_string(InconclusiveReason reason) {
  switch (reason) {
    case InconclusiveReason::none: return "";
    case InconclusiveReason::straddles_threshold: return "straddles_threshold";
    case InconclusiveReason::drift: return "drift";
    case InconclusiveReason::rank_imbalance: return "rank_imbalance";
    case InconclusiveReason::noise_floor: return "noise_floor";
    case InconclusiveReason::underpowered: return "underpowered";
    case InconclusiveReason::too_few_rounds: return "too_few_rounds";
  }
  return "?";
}

void validate_decision_rule(const DecisionRule& rule) {
  if (rule.version < 2 || rule.version > kDecisionRuleVersion)
    throw UsageError(fmt::format("decision rule version {} is not one this tool judges (2 to {})", rule.version,
                                 kDecisionRuleVersion));
  if (!(rule.kill_switch_pct > 0.0 && rule.kill_switch_pct <= 1000.0))
    throw UsageError(fmt::format("kill switch {} % is not a percentage in (0, 1000]", rule.kill_switch_pct));
  if (!(rule.family_alpha > 0.0 && rule.family_alpha < 1.0))
    throw UsageError(fmt::format("family-wise alpha {} is outside (0, 1)", rule.family_alpha));
  if (rule.bootstrap.resamples <= 0 || rule.bootstrap.block_rounds < 0)
    throw UsageError(fmt::format("bootstrap of {} resamples in blocks of {} rounds: resamples must be positive, "
                                 "blocks positive or 0 (the default length)",
                                 rule.bootstrap.resamples, rule.bootstrap.block_rounds));
  if (rule.checkpoints.empty()) throw UsageError("the decision rule needs at least one checkpoint");
  int previous = 0;
  for (const int rounds : rule.checkpoints) {
    if (rounds <= previous)
      throw UsageError(fmt::format("checkpoint {} rounds: checkpoints must be positive and strictly increasing",
                                   rounds));
    previous = rounds;
  }
}

double decision_alpha(const DecisionRule& rule, int judged_cells, int rounds_done, bool final_look) {
  if (rule.version == 2)
    return bonferroni_alpha(rule.family_alpha, judged_cells, static_cast<int>(rule.checkpoints.size()));
  TPB_CHECK(judged_cells > 0, fmt::format("alpha shared by {} judged cells", judged_cells));
  // A look so early that its share underflows can decide nothing: the least
  // positive α keeps every interval unformed rather than undefined.
  return std::max(look_alpha(rule.family_alpha, rule.checkpoints, rounds_done, final_look) / judged_cells,
                  std::numeric_limits<double>::min());
}

IntervalDecision decide_on_interval(const RoundInterval& interval, double kill_switch_pct) {
  if (!interval.formed) return {Outcome::inconclusive, InconclusiveReason::too_few_rounds};
  if (interval.low > kill_switch_pct) return {Outcome::falsified, InconclusiveReason::none};
  if (interval.high < kill_switch_pct) return {Outcome::holds, InconclusiveReason::none};
  return {Outcome::inconclusive, InconclusiveReason::straddles_threshold};
}

int rounds_needed(const RoundInterval& interval, double kill_switch_pct, double alpha) {
  if (!interval.formed) return min_rounds_for_median_interval(alpha) - interval.rounds;
  if (decide_on_interval(interval, kill_switch_pct).outcome != Outcome::inconclusive) return 0;
  const double gap = std::abs(interval.estimate - kill_switch_pct);
  if (gap == 0.0) return kRoundsNeededUnknown;
  const double half_width =
      interval.estimate > kill_switch_pct ? interval.estimate - interval.low : interval.high - interval.estimate;
  const double n = interval.rounds;
  const double further = std::ceil(n * (half_width / gap) * (half_width / gap)) - n;
  // Beyond a million rounds the estimate is, for any study, on the threshold.
  if (further > 1e6) return kRoundsNeededUnknown;
  return std::max(1, static_cast<int>(further));
}

}  // namespace tpb
