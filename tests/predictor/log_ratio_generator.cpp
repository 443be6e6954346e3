#include "log_ratio_generator.hpp"

#include <cmath>
#include <stdexcept>

#include "predictor/statistics.hpp"
#include "sim_random.hpp"

namespace tpb::sim {
namespace {

// P(σ · g_λ(z) ≤ y) for a standard normal z.
double skewed_cdf(double y, double sd, double skew) {
  if (sd == 0.0) return y >= 0.0 ? 1.0 : 0.0;
  const double x = y / sd;
  // g_λ maps the real line onto (−1/λ, ∞) for λ > 0 and onto (−∞, −1/λ) for λ < 0.
  if (skew > 0.0 && x <= -1.0 / skew) return 0.0;
  if (skew < 0.0 && x >= -1.0 / skew) return 1.0;
  return normal_cdf(unskewed(x, skew));
}

// P(noise ≤ m) before centring: the level's normal density integrated by the
// trapezoid rule over ±10 SD (the integrand is smooth; 4001 nodes leave an
// error far below the bisection's 1e−10).
double noise_cdf(const CellNoise& n, double m) {
  constexpr int kNodes = 4001;
  constexpr double kReach = 10.0;
  const double step = 2.0 * kReach / (kNodes - 1);
  double total = 0.0;
  for (int i = 0; i < kNodes; ++i) {
    const double w = -kReach + step * i;
    const double weight = (i == 0 || i == kNodes - 1 ? 0.5 : 1.0) * std::exp(-0.5 * w * w);
    total += weight * skewed_cdf(m - n.level_log_sd * w, n.log_sd, n.skew);
  }
  return total * step / std::sqrt(2.0 * std::numbers::pi);
}

// One cell of an absolute form judged at its launch's level: see
// FamilyCase::at_launch_level.
CellJudgement draw_at_launch_level(const CellNoise& noise, double truth, double shift, const FamilyCase& c,
                                   SplitMix64& rng) {
  CellNoise paired = noise;
  paired.level_log_sd = 0.0;
  const std::vector<double> e = draw_noise(paired, 0.0, c.rounds, rng);
  std::vector<double> level(e.size()), d(e.size());
  double w = standard_normal(rng), true_sum = 0.0, measured_sum = 0.0;
  for (std::size_t r = 0; r < e.size(); ++r) {
    if (r > 0) w = ar1_step(w, noise.level_lag1, 1.0, rng);
    const double true_level = noise.level_log_sd * w + shift;
    level[r] = true_level + noise.anchor_log_sd * standard_normal(rng);  // as the anchor reads it
    true_sum += true_level;
    measured_sum += level[r];
  }
  const double launch_level = (c.truth_at_true_level ? true_sum : measured_sum) / static_cast<double>(e.size());
  for (std::size_t r = 0; r < e.size(); ++r) d[r] = truth + e[r] + level[r] - launch_level;
  return judge_absolute_cell(d, level, c.rule, kFamilyCells);
}

}  // namespace

double noise_median(const CellNoise& n) {
  if (n.level_log_sd == 0.0) return 0.0;  // g_λ(0) = 0: the median of z carries over
  double low = -10.0 * (n.log_sd + n.level_log_sd), high = -low;
  while (high - low > 1e-10) {
    const double middle = 0.5 * (low + high);
    (noise_cdf(n, middle) < 0.5 ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

std::vector<double> draw_noise(const CellNoise& n, double median, int rounds, SplitMix64& rng) {
  std::vector<double> out(static_cast<std::size_t>(rounds));
  double z = standard_normal(rng), w = standard_normal(rng);  // stationary from the first round
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {
      z = ar1_step(z, n.lag1, 1.0, rng);
      w = ar1_step(w, n.level_lag1, 1.0, rng);
    }
    out[static_cast<std::size_t>(r)] = n.log_sd * skewed(z, n.skew) + n.level_log_sd * w - median;
  }
  return out;
}

double draw_launch_shift(const LaunchEffect& effect, SplitMix64& rng) {
  switch (effect.kind) {
    case LaunchEffect::Kind::none: return 0.0;
    case LaunchEffect::Kind::normal: return effect.log_sd * standard_normal(rng);
    case LaunchEffect::Kind::two_level: return (uniform_unit(rng) < 0.5 ? -0.5 : 0.5) * effect.log_step;
  }
  return 0.0;
}

FamilyDraw draw_family(const FamilyCase& c, const std::array<double, kFamilyBatches>& medians, SplitMix64& rng) {
  // One shift per launch, shared by its cells: the launch's level moves them all.
  const double shift = draw_launch_shift(c.launch, rng);
  FamilyDraw out;
  for (int k = 0; k < kFamilyDegrees; ++k) {
    std::vector<CellJudgement> cells;
    for (int b = 0; b < kFamilyBatches; ++b) {
      const auto cell = static_cast<std::size_t>(kFamilyBatches * k + b);
      const double truth = c.truth_log[cell] + (c.truth_is_launch_median ? 0.0 : shift);
      out.launch_median_log[cell] = truth;
      const CellNoise& noise = c.noise[static_cast<std::size_t>(b)];
      if (c.at_launch_level) {
        cells.push_back(draw_at_launch_level(noise, truth, shift, c, rng));
        continue;
      }
      std::vector<double> d = draw_noise(noise, medians[static_cast<std::size_t>(b)], c.rounds, rng);
      for (double& value : d) value += truth;
      cells.push_back(judge_cell(d, c.rule, kFamilyCells));
    }
    out.at_k[static_cast<std::size_t>(k)] = judge_form_at_k(std::move(cells), true);
  }
  return out;
}

FamilyRates run_family(const FamilyCase& c, int studies, std::uint64_t seed) {
  if (studies < 1) throw std::invalid_argument("run_family: no studies");
  const std::array<double, kFamilyBatches> medians =
      c.at_launch_level ? std::array<double, kFamilyBatches>{}
                        : std::array<double, kFamilyBatches>{noise_median(c.noise[0]), noise_median(c.noise[1])};
  SplitMix64 rng(seed);
  FamilyRates rates;
  rates.studies = studies;
  for (int s = 0; s < studies; ++s) {
    const FamilyDraw draw = draw_family(c, medians, rng);
    bool any = false;
    for (std::size_t k = 0; k < kFamilyDegrees; ++k) {
      rates.holds[k] += draw.at_k[k].outcome == Outcome::holds;
      const bool falsified = draw.at_k[k].outcome == Outcome::falsified;
      rates.falsified[k] += falsified;
      any = any || falsified;
    }
    rates.falsified_any_k += any;
  }
  return rates;
}

Coverage run_coverage(const CellNoise& noise, int rounds, const DecisionRule& rule, int family_cells, int studies,
                      std::uint64_t seed) {
  if (studies < 1) throw std::invalid_argument("run_coverage: no studies");
  const double median = noise_median(noise);
  SplitMix64 rng(seed);
  Coverage out;
  out.studies = studies;
  for (int s = 0; s < studies; ++s) {
    // The truth is 0: the noise's own median, subtracted.
    const CellJudgement cell = judge_cell(draw_noise(noise, median, rounds, rng), rule, family_cells);
    if (!cell.hold.formed || !cell.falsify.formed)
      throw std::invalid_argument("run_coverage: too few rounds to form both intervals");
    out.hold_covered += cell.hold.low <= 0.0 && 0.0 <= cell.hold.high;
    out.falsify_covered += cell.falsify.low <= 0.0 && 0.0 <= cell.falsify.high;
    out.hold_nominal = cell.hold.coverage;
    out.falsify_nominal = cell.falsify.coverage;
  }
  return out;
}

double monte_carlo_se(double p, int n) { return std::sqrt(p * (1.0 - p) / n); }

}  // namespace tpb::sim
