#include "predictor/collective_extrapolation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace tpb {
namespace {

// The α of the segment whose sizes hold `bytes`, or of the nearest segment.
double latency_at(const PiecewiseFit& fit, double bytes) {
  const PiecewiseSegment* best = &fit.segments.front();
  for (const auto& s : fit.segments)
    if (bytes >= s.min_bytes) best = &s;
  return std::max(0.0, best->fit.alpha_us);
}

std::vector<int> degrees_above_one(const std::vector<int>& measured_tp) {
  std::vector<int> out;
  for (int k : measured_tp)
    if (k > 1) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int nearest_measured_degree(const std::vector<int>& measured_tp, int k) {
  int best = 0;
  for (int m : degrees_above_one(measured_tp))
    if (best == 0 || std::abs(m - k) <= std::abs(best - k)) best = m;
  return best;
}

double ring_scaled_us(const PiecewiseFit& fit, int km, int k, double bytes) {
  const double total = fit.predict_us(bytes);
  const double latency = std::min(total, latency_at(fit, bytes));
  const double bandwidth = total - latency;
  const double latency_scale = static_cast<double>(k - 1) / (km - 1);
  const double bandwidth_scale = (static_cast<double>(k - 1) / k) / (static_cast<double>(km - 1) / km);
  return latency * latency_scale + bandwidth * bandwidth_scale;
}

bool outside_measured_range(const std::vector<int>& measured_tp, int k) {
  const std::vector<int> m = degrees_above_one(measured_tp);
  return m.empty() || k < m.front() || k > m.back();
}

std::string collective_model_name(const std::vector<int>& measured_tp, int k) {
  const std::vector<int> m = degrees_above_one(measured_tp);
  const int km = nearest_measured_degree(measured_tp, k);
  const std::string model =
      fmt::format("ring model scaled from the TP-{} sweep fits (α · (k−1)/({}−1) + bandwidth part · ((k−1)/k) / "
                  "(({}−1)/{}))",
                  km, km, km, km);
  if (outside_measured_range(measured_tp, k))
    return fmt::format("{}; EXTRAPOLATED beyond the measured k ∈ [{}, {}]", model, m.front(), m.back());
  return fmt::format("{}; inside the measured k ∈ [{}, {}]", model, m.front(), m.back());
}

}  // namespace tpb
