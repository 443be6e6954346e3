#include "predictor/measurement_warnings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "common/samples.hpp"
#include "predictor/statistics.hpp"

namespace tpb {

ConditionStability condition_stability(std::span<const double> values, std::size_t rounds) {
  TPB_CHECK(rounds > 0 && !values.empty() && values.size() % rounds == 0,
            fmt::format("{} samples do not divide into {} rounds", values.size(), rounds));
  const std::size_t per_round = values.size() / rounds;
  std::vector<double> round_medians;
  for (std::size_t r = 0; r < rounds; ++r) round_medians.push_back(median(values.subspan(r * per_round, per_round)));
  ConditionStability s;
  if (rounds > 1) {
    double mean = 0;
    for (double m : round_medians) mean += m;
    mean /= static_cast<double>(rounds);
    double variance = 0;
    for (double m : round_medians) variance += (m - mean) * (m - mean);
    s.cv_pct = std::sqrt(variance / static_cast<double>(rounds - 1)) / mean * 100;
  }
  const double q1 = percentile(values, 0.25), q3 = percentile(values, 0.75);
  const double low = q1 - 1.5 * (q3 - q1), high = q3 + 1.5 * (q3 - q1);
  s.outliers = static_cast<std::size_t>(
      std::count_if(values.begin(), values.end(), [&](double v) { return v < low || v > high; }));
  s.samples = values.size();
  s.unstable = s.cv_pct > kCvWarningPct;
  s.spiky = static_cast<double>(s.outliers) / static_cast<double>(s.samples) > kOutlierWarningShare;
  return s;
}

}  // namespace tpb
