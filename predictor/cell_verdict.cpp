#include "predictor/cell_verdict.hpp"

#include <fmt/format.h>

#include <limits>

#include "common/error.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
namespace {

bool opposite(Outcome a, Outcome b) {
  return (a == Outcome::holds && b == Outcome::falsified) || (a == Outcome::falsified && b == Outcome::holds);
}

CellVerdict not_applicable(const CellEvidence& evidence) {
  constexpr double kNotJudged = std::numeric_limits<double>::quiet_NaN();
  CellVerdict verdict;
  verdict.outcome = Outcome::not_applicable;
  verdict.not_applicable_reason = evidence.not_applicable_reason;
  verdict.error_pct = verdict.error_ci_low_pct = verdict.error_ci_high_pct = kNotJudged;
  verdict.drift_pct = verdict.p_exceeds = verdict.sealed_error_pct = kNotJudged;
  verdict.paired_outcome = verdict.sealed_outcome = Outcome::not_applicable;
  return verdict;
}

}  // namespace

CellVerdict judge_cell(const CellEvidence& evidence, const CellGates& gates, const DecisionRule& rule,
                       double alpha) {
  if (!evidence.applicable) return not_applicable(evidence);
  const PairedRoundErrors& errors = evidence.errors;
  TPB_CHECK(!errors.paired_pct.empty() && errors.sealed_pct.size() == errors.paired_pct.size() &&
                errors.drift_pct.size() == errors.paired_pct.size(),
            fmt::format("cell evidence with {} paired, {} sealed and {} drift rounds", errors.paired_pct.size(),
                        errors.sealed_pct.size(), errors.drift_pct.size()));
  const double kill = rule.kill_switch_pct;
  const RoundInterval paired = median_order_statistic_interval(errors.paired_pct, alpha);
  const RoundInterval sealed = median_order_statistic_interval(errors.sealed_pct, alpha);
  const IntervalDecision paired_decision = decide_on_interval(paired, kill);

  CellVerdict verdict;
  verdict.error_pct = paired.estimate;
  verdict.error_ci_low_pct = paired.low;
  verdict.error_ci_high_pct = paired.high;
  verdict.drift_pct = median(errors.drift_pct);
  verdict.p_exceeds = bootstrap_p_exceeds(errors.paired_pct, kill, rule.bootstrap);
  verdict.rounds = paired.rounds;
  verdict.rounds_needed = rounds_needed(paired, kill, alpha);
  verdict.sealed_error_pct = sealed.estimate;
  verdict.paired_outcome = paired_decision.outcome;
  verdict.sealed_outcome = decide_on_interval(sealed, kill).outcome;

  const auto inconclusive = [&verdict](InconclusiveReason reason) {
    verdict.outcome = Outcome::inconclusive;
    verdict.reason = reason;
    return verdict;
  };
  if (!paired.formed) return inconclusive(InconclusiveReason::too_few_rounds);
  if (gates.noise_floor) return inconclusive(InconclusiveReason::noise_floor);
  if (gates.rank_imbalance) return inconclusive(InconclusiveReason::rank_imbalance);
  if (opposite(verdict.paired_outcome, verdict.sealed_outcome)) return inconclusive(InconclusiveReason::drift);
  if (paired_decision.outcome == Outcome::inconclusive) return inconclusive(paired_decision.reason);
  if (paired_decision.outcome == Outcome::holds && gates.underpowered)
    return inconclusive(InconclusiveReason::underpowered);
  verdict.outcome = paired_decision.outcome;
  return verdict;
}

}  // namespace tpb
