#pragma once
// Piecewise latency-bandwidth fit: real collectives switch algorithm and
// protocol with size (NCCL LL -> LL128 -> Simple, MPI eager -> rendezvous,
// recursive doubling -> ring), so one alpha + n/beta line rarely fits a whole
// sweep. The breakpoints are chosen from the data: the segmentation that
// minimises the weighted squared error is found exactly (dynamic programming
// over contiguous runs of sizes) for each segment count, and the count is
// chosen by the Bayesian information criterion, so an extra segment must pay
// for its three parameters (alpha, beta, breakpoint). Pure math.
#include <cstddef>
#include <vector>

#include "predictor/latency_bandwidth_fit.hpp"

namespace tpb {

struct PiecewiseSegment {
  double min_bytes = 0.0;  // smallest and largest size fitted by this segment
  double max_bytes = 0.0;
  std::size_t points = 0;
  LatencyBandwidthFit fit;  // alpha_us, beta_GBps, r2 and residuals of this segment alone
};

struct PiecewiseFitOptions {
  std::size_t max_segments = 4;
  std::size_t min_points_per_segment = 3;  // two parameters plus one degree of freedom
  FitWeighting weighting = FitWeighting::relative;
};

struct PiecewiseFit {
  std::vector<PiecewiseSegment> segments;  // ascending in size, contiguous
  double r2 = 0.0;                         // of the whole piecewise model, weighted as the fit

  // Uses the segment whose range holds `bytes`; between two segments the
  // boundary is the geometric mean of their edge sizes; outside the sweep the
  // nearest segment extrapolates.
  double predict_us(double bytes) const;
  // Boundaries between consecutive segments (segments.size() - 1 values).
  std::vector<double> breakpoints_bytes() const;
};

// Same input rules as fit_latency_bandwidth; points need not be sorted.
// Fewer than 2 * min_points_per_segment points give a single segment.
PiecewiseFit fit_piecewise(const std::vector<double>& bytes, const std::vector<double>& time_us,
                           const PiecewiseFitOptions& options = {});

}  // namespace tpb
