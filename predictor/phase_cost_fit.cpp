#include "predictor/phase_cost_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "common/error.hpp"

namespace tpb {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Every phase the step's timeline books, by class (docs/TRANSFER.md).
constexpr std::array<std::pair<std::string_view, std::optional<PhaseClass>>, 17> kPhaseClassOf{{
    {"embedding", PhaseClass::elementwise}, {"norm", PhaseClass::elementwise},
    {"qkv", PhaseClass::projection},        {"rope_kv", PhaseClass::elementwise},
    {"attention", PhaseClass::attention},   {"o_proj", PhaseClass::projection},
    {"all_reduce", std::nullopt},           {"residual", PhaseClass::elementwise},
    {"gate_up", PhaseClass::projection},    {"silu_mul", PhaseClass::elementwise},
    {"down", PhaseClass::projection},       {"router", PhaseClass::projection},
    {"shared_gate", PhaseClass::projection}, {"expert_combine", PhaseClass::elementwise},
    {"lm_head", PhaseClass::lm_head},       {"all_gather", std::nullopt},
    {"argmax", PhaseClass::elementwise},
}};

// One candidate: α per interval, µs per byte on the bandwidth-bound side,
// µs per flop on the compute-bound side (0 when that side is empty).
struct Candidate {
  double alpha = 0, us_per_byte = 0, us_per_flop = 0;
  double predict(const PhaseObservation& p) const {
    return p.intervals * alpha + std::max(p.bytes * us_per_byte, p.flops * us_per_flop);
  }
};

double weighted_sse(const Candidate& c, const std::vector<PhaseObservation>& points) {
  double sse = 0;
  for (const auto& p : points) {
    const double r = (p.time_us - c.predict(p)) / p.time_us;
    sse += r * r;
  }
  return sse;
}

// Solves the n × n system in place (Gaussian elimination, partial pivoting);
// false when it is singular.
template <std::size_t N>
bool solve(std::array<std::array<double, N + 1>, N>& m, std::array<double, N>& x) {
  for (std::size_t col = 0; col < N; ++col) {
    std::size_t pivot = col;
    for (std::size_t row = col + 1; row < N; ++row)
      if (std::abs(m[row][col]) > std::abs(m[pivot][col])) pivot = row;
    if (!(std::abs(m[pivot][col]) > 1e-300)) return false;
    std::swap(m[col], m[pivot]);
    for (std::size_t row = 0; row < N; ++row) {
      if (row == col) continue;
      const double f = m[row][col] / m[col][col];
      for (std::size_t j = col; j <= N; ++j) m[row][j] -= f * m[col][j];
    }
  }
  for (std::size_t i = 0; i < N; ++i) x[i] = m[i][N] / m[i][i];
  return true;
}

// Least squares of t = intervals·α + bytes·u (first `split` points, by
// intensity) or flops·v (the rest), each row weighted by 1 / t. Columns are
// scaled to unit size first: bytes and flops run to 10^10 where intervals are 1.
std::optional<Candidate> fit_split(const std::vector<PhaseObservation>& points, std::size_t split) {
  const bool compute_side = split < points.size();
  std::array<double, 3> scale{0, 0, 0};
  for (std::size_t i = 0; i < points.size(); ++i) {
    scale[0] = std::max(scale[0], points[i].intervals / points[i].time_us);
    if (i < split) scale[1] = std::max(scale[1], points[i].bytes / points[i].time_us);
    else scale[2] = std::max(scale[2], points[i].flops / points[i].time_us);
  }
  if (!(scale[0] > 0) || !(scale[1] > 0) || (compute_side && !(scale[2] > 0))) return std::nullopt;
  std::array<std::array<double, 4>, 3> m{};
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const std::array<double, 3> row{p.intervals / p.time_us / scale[0], i < split ? p.bytes / p.time_us / scale[1] : 0,
                                    i < split ? 0 : p.flops / p.time_us / scale[2]};
    for (std::size_t a = 0; a < 3; ++a) {
      for (std::size_t b = 0; b < 3; ++b) m[a][b] += row[a] * row[b];
      m[a][3] += row[a];  // the weighted target t / t
    }
  }
  Candidate c;
  if (compute_side) {
    std::array<double, 3> x{};
    if (!solve<3>(m, x)) return std::nullopt;
    c = {x[0] / scale[0], x[1] / scale[1], x[2] / scale[2]};
  } else {
    std::array<std::array<double, 3>, 2> m2{{{m[0][0], m[0][1], m[0][3]}, {m[1][0], m[1][1], m[1][3]}}};
    std::array<double, 2> x{};
    if (!solve<2>(m2, x)) return std::nullopt;
    c = {x[0] / scale[0], x[1] / scale[1], 0};
  }
  // A negative fixed cost describes no machine either: where the free fit
  // puts α below 0, the least squares with α held at 0 (the bound active) is
  // the constrained optimum, the problem being convex.
  if (c.alpha < 0) {
    if (compute_side) {
      std::array<std::array<double, 3>, 2> m2{{{m[1][1], m[1][2], m[1][3]}, {m[2][1], m[2][2], m[2][3]}}};
      std::array<double, 2> x{};
      if (!solve<2>(m2, x)) return std::nullopt;
      c = {0, x[0] / scale[1], x[1] / scale[2]};
    } else {
      if (!(m[1][1] > 0)) return std::nullopt;
      c = {0, m[1][3] / m[1][1] / scale[1], 0};
    }
  }
  // A negative cost per byte or flop describes no machine.
  if (!(c.us_per_byte > 0) || (compute_side && !(c.us_per_flop > 0))) return std::nullopt;
  return c;
}

// Weighted least squares of t = intervals·α alone.
Candidate fixed_cost_only(const std::vector<PhaseObservation>& points) {
  double num = 0, den = 0;
  for (const auto& p : points) {
    num += p.intervals / p.time_us;
    den += p.intervals * p.intervals / (p.time_us * p.time_us);
  }
  return {num / den, 0, 0};
}

double bic(double sse, std::size_t n, int parameters) {
  const double floor = 1e-300;  // an exact fit: the criterion is then decided by the parameters
  return static_cast<double>(n) * std::log(std::max(sse, floor) / static_cast<double>(n)) +
         parameters * std::log(static_cast<double>(n));
}

}  // namespace

const char* to_string(PhaseClass phase_class) {
  switch (phase_class) {
    case PhaseClass::projection: return "projection";
    case PhaseClass::attention: return "attention";
    case PhaseClass::elementwise: return "elementwise";
    case PhaseClass::lm_head: return "lm_head";
  }
  return "?";
}

PhaseClass parse_phase_class(std::string_view name) {
  for (PhaseClass c : kPhaseClasses)
    if (name == to_string(c)) return c;
  throw UsageError(fmt::format("unknown phase class '{}' (valid: projection, attention, elementwise, lm_head)", name));
}

std::optional<PhaseClass> phase_class_of(std::string_view phase_name) {
  for (const auto& [name, phase_class] : kPhaseClassOf)
    if (name == phase_name) return phase_class;
  throw UsageError(fmt::format("phase '{}' has no cost class", phase_name));
}

double PhaseClassFit::predict_us(double intervals, double bytes, double flops) const {
  const double memory_us = bytes / (beta_GBps * 1e3);
  const double compute_us = gamma_identified ? flops / (gamma_GFLOPs * 1e3) : 0.0;
  return intervals * alpha_us + std::max(memory_us, compute_us);
}

const PhaseClassFit& PhaseCostFit::of(PhaseClass phase_class) const {
  for (const auto& c : classes)
    if (c.phase_class == phase_class) return c;
  throw UsageError(fmt::format("no {} phase was fitted", to_string(phase_class)));
}

PhaseClassFit fit_phase_class(PhaseClass phase_class, const std::vector<PhaseObservation>& points) {
  for (const auto& p : points)
    if (!(p.time_us > 0) || !(p.intervals > 0))
      throw UsageError(fmt::format("{} fit: phase {} at k={} b={} c={} has time {} µs over {} intervals",
                                   to_string(phase_class), p.phase, p.k, p.batch, p.context, p.time_us, p.intervals));
  std::vector<PhaseObservation> sorted = points;
  // Bandwidth-bound below the crossover intensity γ/β, compute-bound above it.
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.flops * b.bytes < b.flops * a.bytes;
  });
  if (sorted.size() < 2)
    throw UsageError(fmt::format("{} fit: {} point does not determine α and β (needs 2)", to_string(phase_class),
                                 sorted.size()));
  // Where the times do not grow with bytes (a slope ≤ 0: noise over phases
  // too short to stream anything), the class is a fixed cost per interval
  // and β is infinite.
  Candidate best = fit_split(sorted, sorted.size()).value_or(fixed_cost_only(sorted));
  double best_sse = weighted_sse(best, sorted);
  const double memory_bic = bic(best_sse, sorted.size(), 2);
  bool compute_bound = false;
  for (std::size_t split = 2; split + 2 <= sorted.size(); ++split) {
    const auto c = fit_split(sorted, split);
    if (!c) continue;
    const double sse = weighted_sse(*c, sorted);  // of the max() model, not of the split's linear one
    if (sse < best_sse && bic(sse, sorted.size(), 4) < memory_bic) {
      best = *c;
      best_sse = sse;
      compute_bound = true;
    }
  }

  PhaseClassFit fit;
  fit.phase_class = phase_class;
  fit.alpha_us = best.alpha;
  fit.beta_GBps = 1e-3 / best.us_per_byte;
  fit.gamma_identified = compute_bound;
  fit.gamma_GFLOPs = compute_bound ? 1e-3 / best.us_per_flop : kInf;
  fit.points = points;
  double mean = 0, weights = 0;
  for (const auto& p : points) {
    mean += 1.0 / p.time_us;  // Σ w·t with w = 1 / t²
    weights += 1.0 / (p.time_us * p.time_us);
  }
  mean /= weights;
  double total = 0;
  for (const auto& p : points) {
    fit.residual_us.push_back(p.time_us - fit.predict_us(p.intervals, p.bytes, p.flops));
    total += (p.time_us - mean) * (p.time_us - mean) / (p.time_us * p.time_us);
  }
  fit.r2 = total > 0 ? 1.0 - best_sse / total : 1.0;
  return fit;
}

PhaseCostFit fit_phase_costs(const std::vector<PhaseObservation>& observations) {
  PhaseCostFit fit;
  for (PhaseClass c : kPhaseClasses) {
    std::vector<PhaseObservation> points;
    for (const auto& o : observations)
      if (phase_class_of(o.phase) == c) points.push_back(o);
    if (!points.empty()) fit.classes.push_back(fit_phase_class(c, points));
  }
  return fit;
}

}  // namespace tpb
