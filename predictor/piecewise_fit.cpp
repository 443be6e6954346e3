#include "predictor/piecewise_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace tpb {
namespace {

struct SortedPoints {
  std::vector<double> bytes;
  std::vector<double> time_us;
};

SortedPoints sorted_by_size(const std::vector<double>& bytes, const std::vector<double>& time_us) {
  if (bytes.size() != time_us.size()) throw std::invalid_argument("fit_piecewise: sizes and times differ in length");
  if (bytes.size() < 2) throw std::invalid_argument("fit_piecewise: needs at least two points");
  std::vector<std::size_t> order(bytes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bytes[a] < bytes[b]; });
  SortedPoints sorted;
  for (std::size_t i : order) {
    sorted.bytes.push_back(bytes[i]);
    sorted.time_us.push_back(time_us[i]);
  }
  return sorted;
}

std::vector<double> slice(const std::vector<double>& values, std::size_t first, std::size_t last) {
  return {values.begin() + static_cast<std::ptrdiff_t>(first), values.begin() + static_cast<std::ptrdiff_t>(last) + 1};
}

// Prefix sums of the weighted moments, so that the least-squares error of a
// line through any run of points costs O(1): the search below tries O(n^2)
// runs. Sizes are scaled by the largest one to keep the moments near 1.
class RunCosts {
 public:
  RunCosts(const SortedPoints& p, FitWeighting weighting) : scale_(p.bytes.back() > 0 ? p.bytes.back() : 1.0) {
    const std::size_t n = p.bytes.size();
    for (auto* sums : {&w_, &wn_, &wt_, &wnn_, &wnt_, &wtt_}) sums->assign(n + 1, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const double w = fit_weight(p.time_us[i], weighting);
      const double x = p.bytes[i] / scale_;
      const double t = p.time_us[i];
      w_[i + 1] = w_[i] + w;
      wn_[i + 1] = wn_[i] + w * x;
      wt_[i + 1] = wt_[i] + w * t;
      wnn_[i + 1] = wnn_[i] + w * x * x;
      wnt_[i + 1] = wnt_[i] + w * x * t;
      wtt_[i + 1] = wtt_[i] + w * t * t;
    }
  }
  // Weighted SSE of the best line through points first..last; +inf when
  // they hold a single distinct size.
  double operator()(std::size_t first, std::size_t last) const {
    const auto sum = [&](const std::vector<double>& s) { return s[last + 1] - s[first]; };
    const double w = sum(w_);
    const double s_nn = sum(wnn_) - sum(wn_) * sum(wn_) / w;
    const double s_nt = sum(wnt_) - sum(wn_) * sum(wt_) / w;
    const double s_tt = sum(wtt_) - sum(wt_) * sum(wt_) / w;
    if (!(s_nn > 1e-12 * sum(wnn_))) return std::numeric_limits<double>::infinity();
    return std::max(0.0, s_tt - s_nt * s_nt / s_nn);
  }

 private:
  double scale_;
  std::vector<double> w_, wn_, wt_, wnn_, wnt_, wtt_;
};

PiecewiseSegment make_segment(const SortedPoints& p, std::size_t first, std::size_t last, FitWeighting weighting) {
  PiecewiseSegment segment;
  segment.min_bytes = p.bytes[first];
  segment.max_bytes = p.bytes[last];
  segment.points = last - first + 1;
  segment.fit = fit_latency_bandwidth(slice(p.bytes, first, last), slice(p.time_us, first, last), weighting);
  return segment;
}

}  // namespace

PiecewiseFit fit_piecewise(const std::vector<double>& bytes, const std::vector<double>& time_us,
                           const PiecewiseFitOptions& options) {
  const SortedPoints p = sorted_by_size(bytes, time_us);
  const std::size_t n = p.bytes.size();
  const std::size_t min_run = std::max<std::size_t>(2, options.min_points_per_segment);
  const std::size_t max_segments = std::max<std::size_t>(1, std::min(options.max_segments, n / min_run));
  const double inf = std::numeric_limits<double>::infinity();
  // Validates the input (and is the whole answer when no split is possible).
  PiecewiseSegment whole = make_segment(p, 0, n - 1, options.weighting);
  if (max_segments == 1) return PiecewiseFit{{whole}, whole.fit.r2};

  const RunCosts cost(p, options.weighting);  // cost(i, j): one line through points i..j

  // best[s][j]: least SSE covering points 0..j with s+1 segments; start[s][j]: first point of the last one.
  std::vector<std::vector<double>> best(max_segments, std::vector<double>(n, inf));
  std::vector<std::vector<std::size_t>> start(max_segments, std::vector<std::size_t>(n, 0));
  for (std::size_t j = min_run - 1; j < n; ++j) best[0][j] = cost(0, j);
  for (std::size_t s = 1; s < max_segments; ++s)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t i = min_run * s; i + min_run - 1 <= j; ++i) {
        const double candidate = best[s - 1][i - 1] + cost(i, j);
        if (candidate < best[s][j]) {
          best[s][j] = candidate;
          start[s][j] = i;
        }
      }

  // BIC with a noise floor: exact synthetic data would otherwise send
  // log(SSE) to -inf and reward every extra segment. The floor is a relative
  // RMS error of 1e-6, far below any timer's resolution.
  const double total_ss = whole.fit.total_ss;
  double mean_square_scale = 0.0;
  for (double t : p.time_us) mean_square_scale += options.weighting == FitWeighting::relative ? 1.0 : t * t;
  const double floor = 1e-12 * mean_square_scale / static_cast<double>(n);
  std::size_t chosen = 0;
  double chosen_bic = inf;
  for (std::size_t s = 0; s < max_segments; ++s) {
    if (!std::isfinite(best[s][n - 1])) continue;
    const double parameters = 3.0 * static_cast<double>(s + 1) - 1.0;  // alpha, beta per segment + breakpoints
    const double bic = static_cast<double>(n) * std::log(std::max(best[s][n - 1] / static_cast<double>(n), floor)) +
                       parameters * std::log(static_cast<double>(n));
    if (bic < chosen_bic) {
      chosen_bic = bic;
      chosen = s;
    }
  }
  if (!std::isfinite(chosen_bic)) throw std::invalid_argument("fit_piecewise: needs at least two distinct sizes");

  PiecewiseFit result;
  std::size_t last = n - 1;
  for (std::size_t s = chosen + 1; s-- > 0;) {
    const std::size_t first = s == 0 ? 0 : start[s][last];
    result.segments.push_back(make_segment(p, first, last, options.weighting));
    if (s > 0) last = first - 1;
  }
  std::reverse(result.segments.begin(), result.segments.end());
  result.r2 = total_ss > 0.0 ? 1.0 - best[chosen][n - 1] / total_ss : 1.0;
  return result;
}

std::vector<double> PiecewiseFit::breakpoints_bytes() const {
  std::vector<double> points;
  for (std::size_t s = 1; s < segments.size(); ++s)
    points.push_back(std::sqrt(segments[s - 1].max_bytes * segments[s].min_bytes));
  return points;
}

double PiecewiseFit::predict_us(double bytes) const {
  if (segments.empty()) throw std::logic_error("PiecewiseFit::predict_us on an empty fit");
  const std::vector<double> bounds = breakpoints_bytes();
  std::size_t s = 0;
  while (s < bounds.size() && bytes >= bounds[s]) ++s;
  return segments[s].fit.predict_us(bytes);
}

}  // namespace tpb
