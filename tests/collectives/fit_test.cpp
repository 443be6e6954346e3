// The latency-bandwidth and piecewise fits on synthetic data with known
// parameters: what the sweep's R2 and the predictor's t_ar_sweep rest on.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "predictor/latency_bandwidth_fit.hpp"
#include "predictor/piecewise_fit.hpp"

namespace tpb {
namespace {

// 8 B .. 64 MiB by factor 2, the acceptance sweep's sizes.
std::vector<double> sweep_bytes() {
  std::vector<double> bytes;
  for (double b = 8; b <= 64.0 * 1024 * 1024; b *= 2) bytes.push_back(b);
  return bytes;
}

// Deterministic +-amplitude relative noise that does not average out trivially.
double noise(std::size_t i, double amplitude) { return 1.0 + amplitude * std::sin(1.7 * static_cast<double>(i) + 0.3); }

std::vector<double> line_times(const std::vector<double>& bytes, double alpha_us, double beta_GBps, double amplitude) {
  std::vector<double> t;
  for (std::size_t i = 0; i < bytes.size(); ++i) t.push_back((alpha_us + bytes[i] / (beta_GBps * 1e3)) * noise(i, amplitude));
  return t;
}

TEST(LatencyBandwidthFit, ExactDataGivesExactParametersAndR2One) {
  const std::vector<double> bytes = sweep_bytes();
  const LatencyBandwidthFit fit = fit_latency_bandwidth(bytes, line_times(bytes, 4.0, 20.0, 0.0));
  EXPECT_NEAR(fit.alpha_us, 4.0, 1e-9);
  EXPECT_NEAR(fit.beta_GBps, 20.0, 1e-9);
  EXPECT_NEAR(fit.r2, 1.0, 1e-12);
  ASSERT_EQ(fit.residual_us.size(), bytes.size());
  for (double r : fit.residual_us) EXPECT_NEAR(r, 0.0, 1e-6);
  // 64 KiB at 20 GB/s = 65536 B / 2e4 B/us = 3.2768 us, plus alpha.
  EXPECT_NEAR(fit.predict_us(65536.0), 4.0 + 3.2768, 1e-9);
}

TEST(LatencyBandwidthFit, RecoversAlphaAndBetaWithinOnePercentUnderNoise) {
  const std::vector<double> bytes = sweep_bytes();
  for (const auto& [alpha_us, beta_GBps] : std::vector<std::pair<double, double>>{{3.5, 12.5}, {25.0, 150.0}, {0.8, 2.0}}) {
    const LatencyBandwidthFit fit = fit_latency_bandwidth(bytes, line_times(bytes, alpha_us, beta_GBps, 0.005));
    EXPECT_NEAR(fit.alpha_us, alpha_us, 0.01 * alpha_us) << "alpha " << alpha_us << " beta " << beta_GBps;
    EXPECT_NEAR(fit.beta_GBps, beta_GBps, 0.01 * beta_GBps) << "alpha " << alpha_us << " beta " << beta_GBps;
    EXPECT_GT(fit.r2, 0.99);
    EXPECT_LT(fit.r2, 1.0);
  }
}

TEST(LatencyBandwidthFit, AbsoluteWeightingIsOrdinaryLeastSquares) {
  // Hand-computed: points (0,1), (1,3), (2,4): slope 1.5, intercept 7/6, R2 = 1 - (1/6)/(14/3).
  const LatencyBandwidthFit fit = fit_latency_bandwidth({0, 1, 2}, {1, 3, 4}, FitWeighting::absolute);
  EXPECT_NEAR(fit.us_per_byte, 1.5, 1e-12);
  EXPECT_NEAR(fit.alpha_us, 7.0 / 6.0, 1e-12);
  EXPECT_NEAR(fit.r2, 1.0 - (1.0 / 6.0) / (14.0 / 3.0), 1e-12);
  EXPECT_NEAR(fit.beta_GBps, 1e-3 / 1.5, 1e-15);
}

TEST(LatencyBandwidthFit, FlatTimesGiveInfiniteBandwidth) {
  const LatencyBandwidthFit fit = fit_latency_bandwidth({8, 16, 32}, {2, 2, 2});
  EXPECT_TRUE(std::isinf(fit.beta_GBps));
  EXPECT_NEAR(fit.alpha_us, 2.0, 1e-12);
}

TEST(LatencyBandwidthFit, RejectsInputsThatCannotBeFitted) {
  EXPECT_THROW(fit_latency_bandwidth({8}, {1}), std::invalid_argument);
  EXPECT_THROW(fit_latency_bandwidth({8, 16}, {1}), std::invalid_argument);
  EXPECT_THROW(fit_latency_bandwidth({8, 8}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(fit_latency_bandwidth({8, 16}, {1, 0}), std::invalid_argument);
}

// Two regimes with a protocol switch between 32 KiB and 64 KiB: low latency,
// low bandwidth below; high latency, high bandwidth above.
std::vector<double> two_regime_times(const std::vector<double>& bytes, double amplitude) {
  std::vector<double> t;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double clean = bytes[i] < 65536 ? 2.0 + bytes[i] / 5e3 : 30.0 + bytes[i] / 12e3;
    t.push_back(clean * noise(i, amplitude));
  }
  return t;
}

TEST(PiecewiseFit, FindsTheBreakpointOfTwoRegimeData) {
  const std::vector<double> bytes = sweep_bytes();
  for (double amplitude : {0.0, 0.01}) {
    const PiecewiseFit fit = fit_piecewise(bytes, two_regime_times(bytes, amplitude));
    ASSERT_EQ(fit.segments.size(), 2u) << "noise " << amplitude;
    EXPECT_EQ(fit.segments[0].max_bytes, 32768.0);
    EXPECT_EQ(fit.segments[1].min_bytes, 65536.0);
    EXPECT_EQ(fit.segments[0].min_bytes, 8.0);
    EXPECT_EQ(fit.segments[1].max_bytes, bytes.back());
    EXPECT_NEAR(fit.segments[0].fit.alpha_us, 2.0, 0.02 * 2.0);
    EXPECT_NEAR(fit.segments[0].fit.beta_GBps, 5.0, 0.02 * 5.0);
    EXPECT_NEAR(fit.segments[1].fit.alpha_us, 30.0, 0.02 * 30.0);
    EXPECT_NEAR(fit.segments[1].fit.beta_GBps, 12.0, 0.02 * 12.0);
    ASSERT_EQ(fit.breakpoints_bytes().size(), 1u);
    EXPECT_NEAR(fit.breakpoints_bytes()[0], std::sqrt(32768.0 * 65536.0), 1e-6);
    // Each side predicts with its own segment.
    EXPECT_NEAR(fit.predict_us(16384), 2.0 + 16384 / 5e3, 0.03 * (2.0 + 16384 / 5e3));
    EXPECT_NEAR(fit.predict_us(1 << 20), 30.0 + (1 << 20) / 12e3, 0.03 * (30.0 + (1 << 20) / 12e3));
    EXPECT_GT(fit.r2, 0.99);
  }
}

TEST(PiecewiseFit, KeepsOneSegmentForOneRegime) {
  const std::vector<double> bytes = sweep_bytes();
  const PiecewiseFit fit = fit_piecewise(bytes, line_times(bytes, 3.5, 12.5, 0.005));
  ASSERT_EQ(fit.segments.size(), 1u);
  EXPECT_NEAR(fit.segments[0].fit.alpha_us, 3.5, 0.035);
}

TEST(PiecewiseFit, UnsortedInputIsSortedAndShortInputIsOneSegment) {
  const PiecewiseFit fit = fit_piecewise({64, 8, 32, 16}, {5, 1.5, 3, 2});
  ASSERT_EQ(fit.segments.size(), 1u);
  EXPECT_EQ(fit.segments[0].min_bytes, 8.0);
  EXPECT_EQ(fit.segments[0].max_bytes, 64.0);
  EXPECT_THROW(fit_piecewise({8}, {1}), std::invalid_argument);
}

}  // namespace
}  // namespace tpb
