#pragma once
// Statistics of per-iteration samples: median, a seeded bootstrap confidence
// interval of the median, signed error and MAPE. Pure functions; the same
// seed gives the same interval on every platform.
#include <cstdint>
#include <span>
#include <vector>

#include "common/samples.hpp"  // median, slowest_rank_per_iteration

namespace tpb {

// Linear-interpolated percentile of a non-empty sample, q in [0, 1]
// (numpy's default "linear" method, so h5py users get the same number).
double percentile(std::span<const double> sample, double q);

struct ConfidenceInterval {
  double low = 0;
  double high = 0;
};

struct BootstrapOptions {
  double confidence = 0.95;     // two-sided
  int resamples = 2000;         // percentile bootstrap
  std::uint64_t seed = 20240;   // recorded with every interval it produced
};

// Percentile-bootstrap interval of the median. Resampling uses mt19937_64,
// whose output sequence the C++ standard fixes, and maps it to indices by
// itself (std::uniform_int_distribution is implementation-defined).
ConfidenceInterval bootstrap_median_ci(std::span<const double> sample, const BootstrapOptions& options = {});

// Signed relative error of a prediction, in percent of the measurement:
// positive when the model predicts a slower step than measured.
double signed_error_pct(double predicted, double measured);

// Standard normal distribution function and its inverse (p in (0, 1)).
double normal_cdf(double z);
double normal_quantile(double p);

// Mean absolute percentage error over paired predictions and measurements.
double mape_pct(std::span<const double> predicted, std::span<const double> measured);

}  // namespace tpb
