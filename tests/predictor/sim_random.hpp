#pragma once
// The draws the simulators share, from the platform-independent SplitMix64
// (predictor/random64.hpp), so that a seed gives the same study everywhere.
#include <cmath>
#include <numbers>

#include "predictor/random64.hpp"

namespace tpb::sim {

// Uniform double in [0, 1) from the top 53 bits of one draw.
inline double uniform_unit(SplitMix64& rng) { return static_cast<double>(rng.next() >> 11) * 0x1.0p-53; }

// One standard normal draw (Box–Muller, the cosine branch).
inline double standard_normal(SplitMix64& rng) {
  const double u1 = 1.0 - uniform_unit(rng);  // (0, 1]: the logarithm stays finite
  const double u2 = uniform_unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// One step of an AR(1) with lag-1 autocorrelation `lag1` and stationary SD
// `sd`: the process stays stationary when it starts from sd · N(0, 1).
inline double ar1_step(double previous, double lag1, double sd, SplitMix64& rng) {
  return lag1 * previous + std::sqrt(1.0 - lag1 * lag1) * sd * standard_normal(rng);
}

// A monotone skewing of a standard normal z: g(z) = (e^{λz} − 1)/λ, z itself
// at λ = 0. Right-skewed for λ > 0 (a log-normal shape), and g(0) = 0, so
// the median of g(z) is 0 at every λ: skew never moves a median.
inline double skewed(double z, double skew) { return skew == 0.0 ? z : std::expm1(skew * z) / skew; }

// Its inverse: the z with skewed(z, skew) = x (x > −1/λ for λ > 0).
inline double unskewed(double x, double skew) { return skew == 0.0 ? x : std::log1p(skew * x) / skew; }

}  // namespace tpb::sim
