#include "predictor/study_stopping.hpp"

#include <algorithm>

namespace tpb {

bool is_decided(Outcome outcome) { return outcome != Outcome::inconclusive; }

bool is_checkpoint(const DecisionRule& rule, int rounds_done) {
  return std::find(rule.checkpoints.begin(), rule.checkpoints.end(), rounds_done) != rule.checkpoints.end();
}

bool should_stop(const DecisionRule& rule, int rounds_done, std::span<const CellVerdict> verdicts) {
  if (!is_checkpoint(rule, rounds_done)) return false;
  if (rounds_done >= rule.max_rounds()) return true;
  return std::all_of(verdicts.begin(), verdicts.end(),
                     [](const CellVerdict& verdict) { return is_decided(verdict.outcome); });
}

}  // namespace tpb
