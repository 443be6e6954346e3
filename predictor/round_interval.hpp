#pragma once
// The distribution-free interval for a median (the sign test's), on any
// series of values: the rule's cells use it on block medians of rounds
// (decision_rule.hpp), the controls and the straggler term on rounds.
#include <span>

namespace tpb {

struct RoundInterval {
  bool formed = false;    // false: too few values for the requested confidence
  int rounds = 0;         // values the interval is taken over
  double estimate = 0;    // their median
  double low = 0;         // x_(l), the l-th smallest value (1-based)
  double high = 0;        // x_(n+1-l)
  double coverage = 0;    // exact coverage 1 − 2·P(Bin(n, ½) ≤ l − 1) for i.i.d. continuous values
};

// Two-sided interval for the median of the values' distribution at level
// 1 − alpha: [x_(l), x_(n+1−l)] with the largest l whose exact binomial
// coverage reaches 1 − alpha. It holds for any continuous distribution, so
// skewed, spiky values do not bias it. Not formed when even [min, max] falls
// short. `values` non-empty, alpha in (0, 1).
RoundInterval median_order_statistic_interval(std::span<const double> values, double alpha);

// The fewest values for which median_order_statistic_interval is formed at
// `alpha`: the smallest n with 2·(½)^n ≤ alpha.
int min_rounds_for_median_interval(double alpha);

}  // namespace tpb
