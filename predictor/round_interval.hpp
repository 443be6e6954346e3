#pragma once
// Intervals for an error statistic over measurement rounds. The round is the
// unit of replication (the level where drift and interference vary), so each
// round contributes one value, and the statistic is the median over rounds.
// Its interval is the distribution-free order-statistic interval; the seeded
// block bootstrap gives p_exceeds. The family-wise α is split by Bonferroni.
#include <cstdint>
#include <span>
#include <vector>

namespace tpb {

// Bonferroni: the α of one decision when `family_alpha` is shared by `cells`
// judged (form, k) cells, each looked at `checkpoints` times. All counts > 0.
double bonferroni_alpha(double family_alpha, int cells, int checkpoints);

struct RoundInterval {
  bool formed = false;    // false: too few rounds for the requested confidence
  int rounds = 0;
  double estimate = 0;    // median over rounds
  double low = 0;         // x_(l), the l-th smallest round (1-based)
  double high = 0;        // x_(n+1-l)
  double coverage = 0;    // exact coverage 1 − 2·P(Bin(n, ½) ≤ l − 1) for i.i.d. continuous rounds
};

// Two-sided interval for the median of the rounds' distribution at level
// 1 − alpha: [x_(l), x_(n+1−l)] with the largest l whose exact binomial
// coverage reaches 1 − alpha. It holds for any continuous distribution, so
// skewed, spiky rounds do not bias it. Not formed when even [min, max] falls
// short. `values` non-empty, alpha in (0, 1).
RoundInterval median_order_statistic_interval(std::span<const double> values, double alpha);

// The fewest rounds for which median_order_statistic_interval is formed at
// `alpha`: the smallest n with 2·(½)^n ≤ alpha.
int min_rounds_for_median_interval(double alpha);

struct BlockBootstrapOptions {
  int resamples = 2000;
  int block_rounds = 0;              // 0: ⌈n^(1/3)⌉ consecutive rounds per block
  std::uint64_t seed = 0x7470626eULL;  // sealed with the rule
};

// Medians of moving-block bootstrap resamples of the rounds, sorted: blocks
// of consecutive rounds (in execution order) drawn with replacement and
// concatenated to n rounds, which keeps the correlation of adjacent rounds.
std::vector<double> block_bootstrap_medians(std::span<const double> values, const BlockBootstrapOptions& options);

// The bootstrap probability that the median over rounds exceeds `threshold`:
// the share of block-bootstrap medians strictly above it.
double bootstrap_p_exceeds(std::span<const double> values, double threshold, const BlockBootstrapOptions& options);

}  // namespace tpb
