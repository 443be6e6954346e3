#include "predictor/latency_bandwidth_fit.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tpb {

LatencyBandwidthFit fit_latency_bandwidth(const std::vector<double>& bytes, const std::vector<double>& time_us,
                                          FitWeighting weighting) {
  if (bytes.size() != time_us.size())
    throw std::invalid_argument("fit_latency_bandwidth: " + std::to_string(bytes.size()) + " sizes but " +
                                std::to_string(time_us.size()) + " times");
  if (bytes.size() < 2) throw std::invalid_argument("fit_latency_bandwidth: needs at least two points");
  for (double t : time_us)
    if (weighting == FitWeighting::relative && !(t > 0.0))
      throw std::invalid_argument("fit_latency_bandwidth: relative weighting needs positive times, got " +
                                  std::to_string(t));

  // Weighted means first, then centred sums: keeps n^2 (up to ~1e16) from
  // swamping the intercept in double precision.
  double sum_w = 0.0, mean_n = 0.0, mean_t = 0.0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double w = fit_weight(time_us[i], weighting);
    sum_w += w;
    mean_n += w * bytes[i];
    mean_t += w * time_us[i];
  }
  mean_n /= sum_w;
  mean_t /= sum_w;
  double s_nn = 0.0, s_nt = 0.0, s_tt = 0.0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double w = fit_weight(time_us[i], weighting);
    const double dn = bytes[i] - mean_n;
    const double dt = time_us[i] - mean_t;
    s_nn += w * dn * dn;
    s_nt += w * dn * dt;
    s_tt += w * dt * dt;
  }
  if (!(s_nn > 0.0)) throw std::invalid_argument("fit_latency_bandwidth: needs at least two distinct sizes");

  LatencyBandwidthFit fit;
  fit.weighting = weighting;
  fit.us_per_byte = s_nt / s_nn;
  fit.alpha_us = mean_t - fit.us_per_byte * mean_n;
  // bytes per us / 1e3 = GB/s
  fit.beta_GBps = fit.us_per_byte > 0.0 ? 1e-3 / fit.us_per_byte : std::numeric_limits<double>::infinity();
  fit.residual_us.reserve(bytes.size());
  double sse = 0.0;  // the weighted sum of squared residuals: what the fit minimises
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double r = time_us[i] - fit.predict_us(bytes[i]);
    fit.residual_us.push_back(r);
    sse += fit_weight(time_us[i], weighting) * r * r;
  }
  fit.total_ss = s_tt;
  // All times equal: a flat line explains everything there is to explain.
  fit.r2 = s_tt > 0.0 ? 1.0 - sse / s_tt : 1.0;
  return fit;
}

}  // namespace tpb
