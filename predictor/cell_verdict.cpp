#include "predictor/cell_verdict.hpp"

#include <fmt/format.h>

#include <limits>
#include <string>
#include <vector>

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
  verdict.signed_error_pct = verdict.signed_ci_low_pct = verdict.signed_ci_high_pct = kNotJudged;
  verdict.drift_pct = verdict.p_exceeds = verdict.sealed_error_pct = kNotJudged;
  verdict.paired_outcome = verdict.sealed_outcome = Outcome::not_applicable;
  return verdict;
}

void set_interval_figures(CellVerdict& verdict, const RoundInterval& paired, double kill, double alpha) {
  verdict.error_pct = paired.estimate;
  verdict.error_ci_low_pct = paired.low;
  verdict.error_ci_high_pct = paired.high;
  verdict.rounds = paired.rounds;
  verdict.rounds_needed = rounds_needed(paired, kill, alpha);
  verdict.paired_outcome = decide_on_interval(paired, kill).outcome;
}

CellVerdict inconclusive(CellVerdict verdict, InconclusiveReason reason) {
  verdict.outcome = Outcome::inconclusive;
  verdict.reason = reason;
  return verdict;
}

// Version 2: the median of the per-round MAPE, its order-statistic interval,
// and the same-node gate.
CellVerdict judge_round_mape(const PairedRoundErrors& errors, const CellGates& gates, const DecisionRule& rule,
                             double alpha) {
  TPB_CHECK(!errors.paired_pct.empty() && errors.sealed_pct.size() == errors.paired_pct.size() &&
                errors.drift_pct.size() == errors.paired_pct.size(),
            fmt::format("cell evidence with {} paired, {} sealed and {} drift rounds", errors.paired_pct.size(),
                        errors.sealed_pct.size(), errors.drift_pct.size()));
  const double kill = rule.kill_switch_pct;
  const RoundInterval paired = median_order_statistic_interval(errors.paired_pct, alpha);
  const RoundInterval sealed = median_order_statistic_interval(errors.sealed_pct, alpha);
  CellVerdict verdict;
  set_interval_figures(verdict, paired, kill, alpha);
  verdict.drift_pct = median(errors.drift_pct);
  verdict.p_exceeds = bootstrap_p_exceeds(errors.paired_pct, kill, rule.bootstrap);
  verdict.sealed_error_pct = sealed.estimate;
  verdict.sealed_outcome = decide_on_interval(sealed, kill).outcome;

  const IntervalDecision decision = decide_on_interval(paired, kill);
  if (!paired.formed) return inconclusive(verdict, InconclusiveReason::too_few_rounds);
  if (gates.noise_floor) return inconclusive(verdict, InconclusiveReason::noise_floor);
  if (gates.rank_imbalance) return inconclusive(verdict, InconclusiveReason::rank_imbalance);
  if (opposite(verdict.paired_outcome, verdict.sealed_outcome)) return inconclusive(verdict, InconclusiveReason::drift);
  if (decision.outcome == Outcome::inconclusive) return inconclusive(verdict, decision.reason);
  if (decision.outcome == Outcome::holds && gates.underpowered)
    return inconclusive(verdict, InconclusiveReason::underpowered);
  verdict.outcome = decision.outcome;
  return verdict;
}

// How far the level of the paired predictions moves, ln: where the sealed
// numbers could as well have stood had the calibration met another stretch of
// the machine's level. drift_pct is ln(sealed / paired) x 100 per round, so
// the paired level is its negative. Version 4: each round's level about the
// median over rounds. Version 5: the difference between the levels of every
// two rounds (a with b and b with a, so every shift comes with its opposite):
// the level change between two moments of the study, drawn as often as a
// random pair of rounds would give it.
std::vector<double> prediction_level_shifts(const std::vector<double>& drift_pct, int rule_version) {
  std::vector<double> shifts;
  if (rule_version == 4) {
    const double centre = median(drift_pct);
    shifts.reserve(drift_pct.size());
    for (double drift : drift_pct) shifts.push_back((centre - drift) / 100.0);
    return shifts;
  }
  shifts.reserve(drift_pct.size() * drift_pct.size());
  for (double a : drift_pct)
    for (double b : drift_pct) shifts.push_back((b - a) / 100.0);
  return shifts;
}

// Version 3: median first, intervals from resampling whole rounds. Versions 4
// and 5: the same, and the calibration-time interval also holds the level the
// predictions moved through (prediction_level_shifts), so a sealed number
// contradicts the paired verdict only beyond what the machine's own level
// changes explain.
CellVerdict judge_median_first(const PairedLogRatios& ratios, const CellGates& gates, const DecisionRule& rule,
                               double alpha) {
  TPB_CHECK(!ratios.paired.empty() && ratios.sealed.size() == ratios.paired.size() &&
                ratios.drift_pct.size() == ratios.paired.size(),
            fmt::format("cell evidence with {} paired, {} sealed and {} drift rounds", ratios.paired.size(),
                        ratios.sealed.size(), ratios.drift_pct.size()));
  const double kill = rule.kill_switch_pct;
  const RoundResampling resampling{rule.bootstrap.resamples, rule.bootstrap.seed};
  const FormErrorInterval paired = form_error_interval(ratios.paired, alpha, resampling, kill);
  const std::vector<double> level_shifts =
      rule.version >= 4 ? prediction_level_shifts(ratios.drift_pct, rule.version) : std::vector<double>{};
  const FormErrorInterval sealed = form_error_interval(ratios.sealed, alpha, resampling, kill, level_shifts);
  CellVerdict verdict;
  set_interval_figures(verdict, paired.unsigned_error, kill, alpha);
  verdict.signed_error_pct = paired.estimate.signed_error_pct;
  verdict.signed_ci_low_pct = paired.signed_low;
  verdict.signed_ci_high_pct = paired.signed_high;
  verdict.cell_error_pct = paired.estimate.cell_error_pct;
  verdict.drift_pct = median(ratios.drift_pct);
  verdict.p_exceeds = paired.p_exceeds;
  verdict.sealed_error_pct = sealed.unsigned_error.estimate;
  verdict.sealed_outcome = decide_on_interval(sealed.unsigned_error, kill).outcome;

  const IntervalDecision decision = decide_on_interval(paired.unsigned_error, kill);
  if (!paired.unsigned_error.formed) return inconclusive(verdict, InconclusiveReason::too_few_rounds);
  if (opposite(verdict.paired_outcome, verdict.sealed_outcome)) return inconclusive(verdict, InconclusiveReason::drift);
  if (decision.outcome == Outcome::inconclusive) return inconclusive(verdict, decision.reason);
  // A failed A/A means the measurement itself may be biased by up to its
  // upper bound: no HOLDS, and a FALSIFIED only beyond what that bias explains.
  if (gates.noise_floor &&
      (decision.outcome == Outcome::holds || verdict.error_ci_low_pct <= kill + gates.aa_upper_pct))
    return inconclusive(verdict, InconclusiveReason::noise_floor);
  if (decision.outcome == Outcome::holds && gates.underpowered)
    return inconclusive(verdict, InconclusiveReason::underpowered);
  verdict.outcome = decision.outcome;
  return verdict;
}

}  // namespace

CellVerdict judge_cell(const CellEvidence& evidence, const CellGates& gates, const DecisionRule& rule,
                       double alpha) {
  if (!evidence.applicable) return not_applicable(evidence);
  if (rule.version == 2) return judge_round_mape(evidence.errors, gates, rule, alpha);
  return judge_median_first(evidence.log_ratios, gates, rule, alpha);
}

}  // namespace tpb
