#include "predictor/campaign_pooling.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "common/error.hpp"

namespace tpb {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The two-sided 1 − level_alpha t interval around `mean`.
RoundInterval t_interval(double mean, double sd, int launches, double level_alpha) {
  RoundInterval interval;
  interval.rounds = launches;
  interval.estimate = mean;
  if (launches < 2) return interval;
  const double half = student_t_quantile(1.0 - level_alpha / 2.0, launches - 1) * sd / std::sqrt(launches);
  interval.formed = true;
  interval.low = mean - half;
  interval.high = mean + half;
  interval.coverage = 1.0 - level_alpha;
  return interval;
}

}  // namespace

double student_t_quantile(double q, int df) {
  TPB_CHECK(df >= 1 && q > 0.0 && q < 1.0, fmt::format("t quantile {} at {} degrees of freedom", q, df));
  return boost::math::quantile(boost::math::students_t(static_cast<double>(df)), q);
}

PooledCell pool_cell(std::span<const double> launch_median_log, const DecisionRule& rule, int family_cells) {
  TPB_CHECK(!launch_median_log.empty(), "a cell pooled over zero launches");
  TPB_CHECK(family_cells >= 1, fmt::format("a family of {} cells", family_cells));
  PooledCell pooled;
  pooled.launch_median_log.assign(launch_median_log.begin(), launch_median_log.end());
  const int launches = static_cast<int>(launch_median_log.size());
  double sum = 0, ratio_sum = 0;
  for (double d : launch_median_log) {
    TPB_CHECK(std::isfinite(d), fmt::format("launch median {} is not finite", d));
    sum += d;
    ratio_sum += std::exp(d);
  }
  const double mean = sum / launches;
  double squares = 0;
  for (double d : launch_median_log) squares += (d - mean) * (d - mean);
  pooled.between_sd_log = launches >= 2 ? std::sqrt(squares / (launches - 1)) : kNaN;

  CellJudgement& cell = pooled.judged;
  cell.rounds = launches;
  cell.median_log = mean;
  cell.error_pct = std::expm1(mean) * 100.0;
  cell.mean_ratio_pct = (ratio_sum / launches - 1.0) * 100.0;
  const double alpha = rule.family_alpha;
  cell.hold = t_interval(mean, pooled.between_sd_log, launches, 2.0 * alpha);
  cell.falsify = t_interval(mean, pooled.between_sd_log, launches, alpha / family_cells);
  decide_on_intervals(cell, rule.margin_log());
  return pooled;
}

double smallest_falsifiable_pct(int launches, double sd_log, const DecisionRule& rule, int family_cells) {
  TPB_CHECK(launches >= 2 && sd_log >= 0 && family_cells >= 1,
            fmt::format("{} launches at SD {}", launches, sd_log));
  const double t = student_t_quantile(1.0 - rule.family_alpha / (2.0 * family_cells), launches - 1);
  return std::expm1(rule.margin_log() + t * sd_log / std::sqrt(launches)) * 100.0;
}

double largest_holdable_pct(int launches, double sd_log, const DecisionRule& rule) {
  TPB_CHECK(launches >= 2 && sd_log >= 0, fmt::format("{} launches at SD {}", launches, sd_log));
  const double t = student_t_quantile(1.0 - rule.family_alpha, launches - 1);
  const double bound = rule.margin_log() - t * sd_log / std::sqrt(launches);
  return bound > 0 ? std::expm1(bound) * 100.0 : kNaN;
}

int launches_for_hold_power(double sd_log, const DecisionRule& rule, double power, int max_launches) {
  TPB_CHECK(sd_log >= 0 && power > 0 && power < 1, fmt::format("power {} at SD {}", power, sd_log));
  for (int launches = 2; launches <= max_launches; ++launches) {
    const double t = student_t_quantile(1.0 - rule.family_alpha, launches - 1) +
                     student_t_quantile(1.0 - (1.0 - power) / 2.0, launches - 1);
    if (t * sd_log / std::sqrt(launches) <= rule.margin_log()) return launches;
  }
  return max_launches + 1;
}

}  // namespace tpb
