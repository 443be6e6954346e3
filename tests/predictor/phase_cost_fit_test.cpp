// The per-phase cost fit on simulated phase timings with a known α, β and γ.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "predictor/phase_cost_fit.hpp"
#include "sim_random.hpp"

namespace tpb {
namespace {

constexpr double kAlphaUs = 4.0, kBetaGBps = 20.0, kGammaGFLOPs = 100.0;

double true_us(double intervals, double bytes, double flops, bool compute_bound_too) {
  const double compute = compute_bound_too ? flops / (kGammaGFLOPs * 1e3) : 0.0;
  return intervals * kAlphaUs + std::max(bytes / (kBetaGBps * 1e3), compute);
}

// Phases of 2 intervals over a decade of bytes and intensities from 0.5 to 40
// flops per byte (the crossover is γ/β = 5), each time off by up to ±`noise`.
std::vector<PhaseObservation> simulated(double noise, double max_intensity) {
  SplitMix64 rng(2026);
  std::vector<PhaseObservation> points;
  int batch = 0;
  for (double bytes : {2e5, 6e5, 2e6, 6e6})
    for (double intensity = 0.5; intensity <= max_intensity; intensity *= 2) {
      const double flops = bytes * intensity;
      const double jitter = 1.0 + noise * (2.0 * sim::uniform_unit(rng) - 1.0);
      points.push_back({"qkv", 1, ++batch, 0, 2, bytes, flops, true_us(2, bytes, flops, true) * jitter});
    }
  return points;
}

TEST(PhaseCostFit, RecoversAlphaBetaGammaWithinTwoPercentFromNoisyTimings) {
  const PhaseClassFit fit = fit_phase_class(PhaseClass::projection, simulated(0.005, 40));
  ASSERT_TRUE(fit.gamma_identified);
  EXPECT_NEAR(fit.alpha_us, kAlphaUs, 0.02 * kAlphaUs);
  EXPECT_NEAR(fit.beta_GBps, kBetaGBps, 0.02 * kBetaGBps);
  EXPECT_NEAR(fit.gamma_GFLOPs, kGammaGFLOPs, 0.02 * kGammaGFLOPs);
  EXPECT_GT(fit.r2, 0.999);
  ASSERT_EQ(fit.residual_us.size(), fit.points.size());
}

TEST(PhaseCostFit, ExactTimingsGiveZeroResidualsInInputOrder) {
  const auto points = simulated(0.0, 40);
  const PhaseClassFit fit = fit_phase_class(PhaseClass::projection, points);
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(fit.points[i].batch, points[i].batch);
    EXPECT_NEAR(fit.residual_us[i], 0.0, 1e-6 * points[i].time_us) << i;
  }
  EXPECT_NEAR(fit.r2, 1.0, 1e-9);
}

TEST(PhaseCostFit, BandwidthBoundPointsLeaveGammaUnidentified) {
  // Every intensity below the crossover: bytes alone explain the times.
  const PhaseClassFit fit = fit_phase_class(PhaseClass::projection, simulated(0.005, 4));
  EXPECT_FALSE(fit.gamma_identified);
  EXPECT_TRUE(std::isinf(fit.gamma_GFLOPs));
  EXPECT_NEAR(fit.beta_GBps, kBetaGBps, 0.02 * kBetaGBps);
  EXPECT_NEAR(fit.alpha_us, kAlphaUs, 0.02 * kAlphaUs);
  // Priced by bytes only, whatever the flops.
  EXPECT_DOUBLE_EQ(fit.predict_us(1, 1e6, 1e12), fit.alpha_us + 1e6 / (fit.beta_GBps * 1e3));
}

// Times with no fixed cost whose noise tilts the free fit below 0: the
// fit holds α at 0 and still finds the bandwidth (the LM head of a CPU study,
// one large matrix per step, fitted a negative α before the bound).
TEST(PhaseCostFit, FixedCostIsNeverNegative) {
  std::vector<PhaseObservation> points;
  int batch = 0;
  for (double bytes : {1e8, 2e8, 4e8, 8e8}) {
    const double tilt = bytes < 5e8 ? 0.97 : 1.01;  // small sizes faster: the free fit's α goes negative
    points.push_back({"lm_head", 1, ++batch, 0, 1, bytes, bytes / 2, bytes / (kBetaGBps * 1e3) * tilt});
  }
  const PhaseClassFit fit = fit_phase_class(PhaseClass::lm_head, points);
  EXPECT_GE(fit.alpha_us, 0.0);
  EXPECT_NEAR(fit.beta_GBps, kBetaGBps, 0.03 * kBetaGBps);
}

TEST(PhaseCostFit, GroupsPhasesByClassAndLeavesCollectivesToTheSweeps) {
  std::vector<PhaseObservation> points;
  for (const char* phase : {"norm", "residual", "all_reduce", "lm_head", "all_gather"})
    for (double bytes : {1e4, 1e5, 1e6}) points.push_back({phase, 1, 1, 0, 1, bytes, 0, true_us(1, bytes, 0, false)});
  const PhaseCostFit fit = fit_phase_costs(points);
  ASSERT_EQ(fit.classes.size(), 2u);
  EXPECT_EQ(fit.of(PhaseClass::elementwise).points.size(), 6u);
  EXPECT_EQ(fit.of(PhaseClass::lm_head).points.size(), 3u);
  EXPECT_THROW(fit.of(PhaseClass::attention), UsageError);
  EXPECT_FALSE(phase_class_of("all_reduce").has_value());
  EXPECT_EQ(phase_class_of("router"), PhaseClass::projection);
  EXPECT_THROW(phase_class_of("softmax"), UsageError);
  EXPECT_EQ(parse_phase_class(to_string(PhaseClass::lm_head)), PhaseClass::lm_head);
}

TEST(PhaseCostFit, TimesThatDoNotGrowWithBytesAreAFixedCostPerInterval) {
  // Phases too short to stream anything: noise, not bandwidth, orders them.
  const PhaseClassFit fit = fit_phase_class(
      PhaseClass::elementwise, {{"norm", 1, 1, 0, 2, 1e3, 0, 9.0}, {"norm", 1, 4, 0, 2, 4e3, 0, 7.0}});
  EXPECT_TRUE(std::isinf(fit.beta_GBps));
  EXPECT_FALSE(fit.gamma_identified);
  EXPECT_GT(fit.alpha_us, 3.5);
  EXPECT_LT(fit.alpha_us, 4.5);
  EXPECT_DOUBLE_EQ(fit.predict_us(2, 1e9, 0), 2 * fit.alpha_us);
}

TEST(PhaseCostFit, RefusesTooFewPointsAndTimesThatAreNotPositive) {
  EXPECT_THROW(fit_phase_class(PhaseClass::attention, {{"attention", 1, 1, 0, 1, 1e5, 1e5, 10}}), UsageError);
  EXPECT_THROW(fit_phase_class(PhaseClass::attention,
                               {{"attention", 1, 1, 0, 1, 1e5, 1e5, 10}, {"attention", 1, 4, 0, 1, 4e5, 4e5, 0}}),
               UsageError);
}

}  // namespace
}  // namespace tpb
