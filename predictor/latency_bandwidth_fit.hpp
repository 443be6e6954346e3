#pragma once
// The latency-bandwidth model of a collective, t(n) = alpha + n / beta,
// fitted by weighted least squares to a sweep (payload bytes -> time_us).
// Pure math on plain vectors: no MPI, CUDA or HDF5.
#include <cstddef>
#include <vector>

namespace tpb {

// How the squared residuals are weighted.
//  relative: each point by 1/t^2, so a sweep spanning 8 B .. 64 MiB (seven
//            decades of time) is fitted evenly; otherwise the largest sizes
//            alone set alpha, which is what small decode payloads need most.
//  absolute: ordinary least squares on microseconds.
enum class FitWeighting { relative, absolute };

// A point's weight in the fit: 1/t^2 (relative) or 1 (absolute).
inline double fit_weight(double time_us, FitWeighting weighting) {
  return weighting == FitWeighting::relative ? 1.0 / (time_us * time_us) : 1.0;
}

struct LatencyBandwidthFit {
  double alpha_us = 0.0;      // fixed cost per call
  double us_per_byte = 0.0;   // the fitted slope, 1/beta
  double beta_GBps = 0.0;     // 1 GB/s = 10^9 B/s = 10^3 bytes per us; +inf when the slope is <= 0
  double r2 = 0.0;            // coefficient of determination, in the same weighting as the fit
  double total_ss = 0.0;      // weighted sum of squares of the times about their weighted mean: r2's base
  std::vector<double> residual_us;  // measured - predicted, one per input point, input order
  FitWeighting weighting = FitWeighting::relative;

  double predict_us(double bytes) const { return alpha_us + us_per_byte * bytes; }
};

// Needs at least two distinct sizes, equal-length inputs, and (for relative
// weighting) positive times; std::invalid_argument otherwise.
LatencyBandwidthFit fit_latency_bandwidth(const std::vector<double>& bytes, const std::vector<double>& time_us,
                                          FitWeighting weighting = FitWeighting::relative);

}  // namespace tpb
