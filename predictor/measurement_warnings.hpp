#pragma once
// Warnings in the style of pyperf about one measured condition of a study:
// its per-round medians vary too much between rounds (coefficient of
// variation above 10 %), or too many of its samples lie outside Tukey's
// fences (1.5 IQR beyond the quartiles). Outliers are counted, never dropped:
// the decision uses every sample.
#include <cstddef>
#include <span>

namespace tpb {

inline constexpr double kCvWarningPct = 10.0;         // pyperf's threshold for an unstable benchmark
inline constexpr double kOutlierWarningShare = 0.05;  // Tukey outliers in more than 5 % of the samples

struct ConditionStability {
  double cv_pct = 0;         // of the per-round medians (0 with one round)
  std::size_t outliers = 0;  // samples beyond Tukey's fences
  std::size_t samples = 0;
  bool unstable = false;     // cv_pct > kCvWarningPct
  bool spiky = false;        // outliers / samples > kOutlierWarningShare
};

// `values` holds `rounds` equal blocks of samples (rounds × iterations ×
// ranks, row-major); tpb::Error when it does not divide into them.
ConditionStability condition_stability(std::span<const double> values, std::size_t rounds);

}  // namespace tpb
