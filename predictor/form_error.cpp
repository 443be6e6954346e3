#include "predictor/form_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "predictor/random64.hpp"

namespace tpb {
namespace {

constexpr int kTailResamples = 25;
constexpr int kMaxResamples = 200000;

void check_rounds(const LogRatios& rounds) {
  TPB_CHECK(!rounds.empty(), "form error of zero rounds");
  const std::size_t cells = rounds.front().size();
  for (const auto& round : rounds) {
    TPB_CHECK(!round.empty() && round.size() == cells,
              fmt::format("a round holds {} grid cells, the first holds {}", round.size(), cells));
    for (double d : round) TPB_CHECK(std::isfinite(d), fmt::format("log-ratio {} is not finite", d));
  }
}

// Each cell's rounds in ascending order, so that the median of any resample
// is read from the resample's round counts in one pass (a resample of whole
// rounds is a count per round; no copy, no sort).
class SortedCells {
 public:
  explicit SortedCells(const LogRatios& rounds) : rounds_(rounds.size()) {
    const std::size_t cells = rounds.front().size();
    order_.resize(cells);
    for (std::size_t c = 0; c < cells; ++c) {
      auto& order = order_[c];
      order.resize(rounds_);
      for (std::size_t r = 0; r < rounds_; ++r) order[r] = {rounds[r][c], r};
      std::sort(order.begin(), order.end());
    }
  }

  std::size_t rounds() const { return rounds_; }

  // The form error of the resample that takes round r counts[r] times
  // (counts add up to the number of rounds), every cell's median lowered by
  // `level_shift` (ln).
  void error_of(const std::vector<int>& counts, FormError& error, double level_shift = 0.0) const {
    const std::size_t cells = order_.size();
    error.cell_error_pct.resize(cells);
    error.error_pct = error.signed_error_pct = 0.0;
    // 1-based ranks of the middle values: equal for an odd count.
    const auto low_rank = static_cast<int>((rounds_ + 1) / 2), high_rank = static_cast<int>(rounds_ / 2 + 1);
    for (std::size_t c = 0; c < cells; ++c) {
      int seen = 0;
      double low = 0.0, high = 0.0;
      bool have_low = false;
      for (const auto& [value, round] : order_[c]) {
        seen += counts[round];
        if (!have_low && seen >= low_rank) {
          low = value;
          have_low = true;
        }
        if (seen >= high_rank) {
          high = value;
          break;
        }
      }
      const double cell_pct = std::expm1(0.5 * (low + high) - level_shift) * 100.0;
      error.cell_error_pct[c] = cell_pct;
      error.error_pct += std::abs(cell_pct) / static_cast<double>(cells);
      error.signed_error_pct += cell_pct / static_cast<double>(cells);
    }
  }

 private:
  std::size_t rounds_;
  std::vector<std::vector<std::pair<double, std::size_t>>> order_;  // per cell: (value, round), ascending
};

// The q-quantile of sorted resampled values, by order statistic.
double sorted_quantile(const std::vector<double>& sorted, double q) {
  const auto last = static_cast<double>(sorted.size() - 1);
  return sorted[static_cast<std::size_t>(std::clamp(std::round(q * last), 0.0, last))];
}

}  // namespace

FormError form_error(const LogRatios& rounds) {
  check_rounds(rounds);
  FormError error;
  SortedCells(rounds).error_of(std::vector<int>(rounds.size(), 1), error);
  return error;
}

int resamples_for(int sealed, double alpha) {
  TPB_CHECK(alpha > 0.0 && alpha < 1.0, fmt::format("alpha {} outside (0, 1)", alpha));
  const double needed = std::ceil(2.0 * kTailResamples / alpha);
  return static_cast<int>(std::max<double>(sealed, std::min<double>(needed, kMaxResamples + 1.0)));
}

FormErrorInterval form_error_interval(const LogRatios& rounds, double alpha, const RoundResampling& resampling,
                                      double threshold_pct, const std::vector<double>& level_shifts) {
  check_rounds(rounds);
  TPB_CHECK(resampling.resamples > 0, fmt::format("{} resamples", resampling.resamples));
  for (double shift : level_shifts) TPB_CHECK(std::isfinite(shift), fmt::format("level shift {} is not finite", shift));
  FormErrorInterval interval;
  const SortedCells sorted(rounds);
  const std::size_t n = rounds.size();
  sorted.error_of(std::vector<int>(n, 1), interval.estimate);
  RoundInterval& u = interval.unsigned_error;
  u.rounds = static_cast<int>(n);
  u.estimate = interval.estimate.error_pct;
  // An interval that cannot form at this α (too few rounds, or more
  // resamples than the cap) costs only the sealed resamples of p_exceeds.
  const bool formable = static_cast<int>(n) >= min_rounds_for_median_interval(alpha) &&
                        resamples_for(resampling.resamples, alpha) <= kMaxResamples;
  const int resamples = formable ? resamples_for(resampling.resamples, alpha) : resampling.resamples;
  SplitMix64 rng(resampling.seed);
  std::vector<int> counts(n);
  std::vector<double> unsigned_errors, signed_errors;
  unsigned_errors.reserve(static_cast<std::size_t>(resamples));
  signed_errors.reserve(static_cast<std::size_t>(resamples));
  FormError resampled;
  for (int i = 0; i < resamples; ++i) {
    std::fill(counts.begin(), counts.end(), 0);
    for (std::size_t draw = 0; draw < n; ++draw) ++counts[static_cast<std::size_t>(uniform_below(rng, n))];
    const double shift = level_shifts.empty() ? 0.0 : level_shifts[uniform_below(rng, level_shifts.size())];
    sorted.error_of(counts, resampled, shift);
    unsigned_errors.push_back(resampled.error_pct);
    signed_errors.push_back(resampled.signed_error_pct);
  }
  std::sort(unsigned_errors.begin(), unsigned_errors.end());
  std::sort(signed_errors.begin(), signed_errors.end());
  const auto first_above = std::upper_bound(unsigned_errors.begin(), unsigned_errors.end(), threshold_pct);
  interval.p_exceeds = static_cast<double>(unsigned_errors.end() - first_above) / resamples;
  if (!formable) return interval;
  u.formed = true;
  u.low = sorted_quantile(unsigned_errors, alpha / 2.0);
  u.high = sorted_quantile(unsigned_errors, 1.0 - alpha / 2.0);
  u.coverage = 1.0 - alpha;
  interval.signed_low = sorted_quantile(signed_errors, alpha / 2.0);
  interval.signed_high = sorted_quantile(signed_errors, 1.0 - alpha / 2.0);
  return interval;
}

}  // namespace tpb
