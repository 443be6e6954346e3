// The deployment decision against hand arithmetic: the line in batch and its
// boundaries, the form a modelled figure may use, the layer scaling, the
// largest admissible batch from a memory line, and the choice under a TPOT SLO.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "predictor/collective_extrapolation.hpp"
#include "predictor/deployment_decision.hpp"

namespace tpb {
namespace {

using Points = std::vector<std::pair<int, double>>;

TEST(EstimateInBatch, GridBatchIsMeasured) {
  const Points p{{1, 100}, {8, 240}};
  const auto e = estimate_in_batch(p, 8);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, BatchSource::measured);
  EXPECT_DOUBLE_EQ(e->value, 240);
}

TEST(EstimateInBatch, BetweenGridBatchesIsInterpolated) {
  // 100 + (240 − 100) / 7 · (4 − 1) = 160.
  const Points p{{8, 240}, {1, 100}};
  const auto e = estimate_in_batch(p, 4);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, BatchSource::interpolated);
  EXPECT_DOUBLE_EQ(e->value, 160);
  EXPECT_EQ(e->line_from_batch, 1);
  EXPECT_EQ(e->line_to_batch, 8);
}

TEST(EstimateInBatch, BeyondTheGridIsExtrapolatedThroughTheTwoNearest) {
  // Through (4, 150) and (8, 250): 250 + 25 · (33 − 8) = 875; b=1 plays no part.
  const Points p{{1, 10}, {4, 150}, {8, 250}};
  const auto e = estimate_in_batch(p, 33);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, BatchSource::extrapolated);
  EXPECT_DOUBLE_EQ(e->value, 875);
  EXPECT_EQ(e->line_from_batch, 4);
  EXPECT_EQ(e->line_to_batch, 8);
}

TEST(EstimateInBatch, BelowTheGridIsExtrapolatedThroughTheTwoSmallest) {
  const Points p{{2, 120}, {4, 160}, {8, 1000}};
  const auto e = estimate_in_batch(p, 1);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, BatchSource::extrapolated);
  EXPECT_DOUBLE_EQ(e->value, 100);
}

TEST(EstimateInBatch, OneBatchGivesNoLine) {
  const Points p{{8, 240}};
  EXPECT_FALSE(estimate_in_batch(p, 16));
  EXPECT_TRUE(estimate_in_batch(p, 8));
}

TEST(EstimateInBatch, AFallingLineIsNotExtendedButIsInterpolated) {
  const Points p{{1, 300}, {8, 240}};
  EXPECT_FALSE(estimate_in_batch(p, 16));
  const auto inside = estimate_in_batch(p, 4);
  ASSERT_TRUE(inside);
  EXPECT_EQ(inside->source, BatchSource::interpolated);
}

TEST(FormForModelledFigures, HoldingFormWithTheSmallestBoundWins) {
  const std::vector<FormStanding> s{{"ideal", 2, "HOLDS", 9.0},
                                    {"replay", 2, "HOLDS", 4.5},
                                    {"host_floor", 2, "FALSIFIED", 1.0},
                                    {"max_form", 2, "INCONCLUSIVE", 2.0},
                                    {"replay", 1, "HOLDS", 0.5}};
  const auto f = form_for_modelled_figures(s, 2);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->form, "replay");
  EXPECT_DOUBLE_EQ(*f->error_ci_high_pct, 4.5);
}

TEST(FormForModelledFigures, NoStatedBoundMeansNoForm) {
  // What a verdict that stated a MAPE but no interval gives.
  const std::vector<FormStanding> s{{"ideal", 2, "HOLDS", std::nullopt}, {"replay", 2, "NOT_APPLICABLE", 1.0}};
  EXPECT_FALSE(form_for_modelled_figures(s, 2));
}

TEST(FormForUnmeasuredDegree, MustHoldWithABoundAtEveryMeasuredDegreeAboveOne) {
  const std::vector<FormStanding> s{{"ideal", 1, "FALSIFIED", 50.0}, {"ideal", 2, "HOLDS", 3.0},
                                    {"ideal", 4, "HOLDS", 9.0},      {"replay", 2, "HOLDS", 5.0},
                                    {"replay", 4, "HOLDS", 6.0},     {"max_form", 2, "HOLDS", 1.0},
                                    {"max_form", 4, "INCONCLUSIVE", 2.0}};
  // ideal's worst is 9 %, replay's 6 %; max_form does not hold at k = 4; k = 1 plays no part.
  const auto f = form_for_unmeasured_degree(s, {1, 2, 4});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->form, "replay");
  EXPECT_DOUBLE_EQ(*f->error_ci_high_pct, 6.0);
  EXPECT_FALSE(form_for_unmeasured_degree({{"ideal", 2, "HOLDS", std::nullopt}}, {1, 2}));
}

TEST(CollectiveExtrapolation, RingStepCountsScaleTheMeasuredFit) {
  // One segment, α = 10 µs, 1 µs per KB: at 4,000 B the TP-2 fit gives 10 + 4 = 14 µs.
  PiecewiseFit fit;
  PiecewiseSegment segment;
  segment.min_bytes = 1000;
  segment.max_bytes = 100000;
  segment.fit.alpha_us = 10;
  segment.fit.us_per_byte = 0.001;
  fit.segments.push_back(segment);
  EXPECT_DOUBLE_EQ(ring_scaled_us(fit, 2, 2, 4000), 14);
  // TP-4: latency · 3/1 = 30, bandwidth · (3/4)/(1/2) = 6: 36 µs. TP-8: 70 + 4 · 1.75 = 77.
  EXPECT_DOUBLE_EQ(ring_scaled_us(fit, 2, 4, 4000), 36);
  EXPECT_DOUBLE_EQ(ring_scaled_us(fit, 2, 8, 4000), 77);
  EXPECT_EQ(nearest_measured_degree({1, 2}, 8), 2);
  EXPECT_EQ(nearest_measured_degree({1, 2, 8}, 4), 2);
  EXPECT_EQ(nearest_measured_degree({1, 2, 8}, 6), 8);
  EXPECT_EQ(nearest_measured_degree({1}, 4), 0);
  EXPECT_TRUE(outside_measured_range({1, 2}, 4));
  EXPECT_FALSE(outside_measured_range({1, 2, 8}, 4));
  EXPECT_NE(collective_model_name({1, 2}, 4).find("EXTRAPOLATED beyond the measured k ∈ [2, 2]"), std::string::npos);
  EXPECT_NE(collective_model_name({1, 2, 8}, 4).find("inside the measured k ∈ [2, 8]"), std::string::npos);
}

TEST(LayerScaling, ComputeScalesByWeightBytesReadPerStep) {
  // 2 → 16 layers of 100 B each with a 300 B LM head: (1600 + 300) / (200 + 300) = 3.8.
  const LayerScaling s = layer_scaling(2, 16, 100, 300);
  EXPECT_DOUBLE_EQ(s.compute_factor, 3.8);
  EXPECT_DOUBLE_EQ(s.layer_ratio(), 8);
  // compute 50, all-reduces 20 (of a collective share 30), host 5:
  // 2.8 · 50 + 7 · (20 + 5) = 315; the all-gather's 10 µs are not scaled.
  EXPECT_DOUBLE_EQ(missing_layers_us({50, 30, 5}, 20, s), 315);
}

// A study of TP 1 and 2 at b ∈ {1, 8}, c = 256 with constant samples (median
// = CI high), registered with hand-set calibration inputs.
DecisionQuestion question(int layers_run, int layers_full) {
  DecisionQuestion q;
  Registration& r = q.registration;
  r.workload.layers = layers_run;
  r.workload.bootstrap_resamples = 50;
  r.grid = {{1, 2}, {1, 8}, {256}};
  for (int k : {1, 2})
    for (int b : {1, 8}) {
      CellInputs cell;
      cell.batch = b;
      cell.context = 256;
      // t_compute(1) 100 + 10 b; replay(k) = that / k; all-reduce 2 × (1 + b) at k = 2; all-gather 3.
      cell.inputs = {k, 100.0 + 10 * b, 0, (100.0 + 10 * b) / k, 4, k == 2 ? (1.0 + b) / 2 : 0, 1, k == 2 ? 3.0 : 0};
      r.calibration.push_back(cell);
    }
  r.predictions = predict_all(r.calibration);
  // Measured: TP-1 110 and 180 µs, TP-2 70 and 120 µs.
  const double t[2][2] = {{110, 180}, {70, 120}};
  for (int ki = 0; ki < 2; ++ki)
    for (int bi = 0; bi < 2; ++bi) {
      MeasuredCell m;
      m.k = ki + 1;
      m.batch = bi == 0 ? 1 : 8;
      m.context = 256;
      m.t_step_us = std::vector<double>(5, t[ki][bi]);
      m.compute_us = t[ki][bi] * 0.8;
      m.collective_us = t[ki][bi] * 0.2;
      m.host_us = 0;
      q.measured.push_back(m);
    }
  // Full-model memory lines: 10 B per sequence and 1 KV byte per token; under a 10,000 B budget with no
  // reserve, TP-1's 1,000 B of weights leave 9,000 B / (257 + 10) = 33 sequences at c = 256, TP-2's 1,500 B
  // leave 8,500 / 267 = 31.
  for (int k : {1, 2}) {
    DecisionDegree d;
    d.k = k;
    d.line = {k == 1 ? 1000 : 1500, 0, 10, 1, 0};
    d.layers = layer_scaling(layers_run, layers_full, 100, 300);
    q.degrees.push_back(d);
  }
  q.budget_bytes = 10000;
  q.reserve_pct = 0;
  return q;
}

TEST(DecideDeployment, LargestBatchAndItsStepTimeWhenEveryLayerRan) {
  const DeploymentDecision d = decide_deployment(question(16, 16));
  ASSERT_EQ(d.degrees.size(), 2u);
  EXPECT_EQ(d.degrees[0].max_batch, std::vector<std::int64_t>{33});
  EXPECT_EQ(d.degrees[1].max_batch, std::vector<std::int64_t>{31});
  const auto& rows = d.degrees[0].rows;
  ASSERT_EQ(rows.size(), 3u);  // b = 1, 8 measured, then the maximum
  EXPECT_TRUE(rows[0].measured());
  EXPECT_TRUE(rows[1].measured());
  const DecisionRow& max = rows[2];
  EXPECT_FALSE(max.measured());
  EXPECT_TRUE(max.at_max_batch);
  EXPECT_EQ(max.batch, 33);
  EXPECT_EQ(max.run->source, BatchSource::extrapolated);
  // 110 + 10 · (33 − 1) = 430 µs; 33 / 430 µs = 76,744.19 tokens/s on one device.
  EXPECT_DOUBLE_EQ(*max.full_us, 430);
  EXPECT_DOUBLE_EQ(*max.tpot_ms(), 0.43);
  EXPECT_NEAR(*max.tokens_per_s_per_device(), 33 / 430e-6, 1e-6);
  // TP-2 at b=8: 8 / 120 µs / 2 devices.
  EXPECT_NEAR(*d.degrees[1].rows[1].tokens_per_s_per_device(), 8 / 120e-6 / 2, 1e-6);
  EXPECT_TRUE(d.degrees[0].form.empty());  // no layers to scale: no composition form needed
}

TEST(DecideDeployment, FewerLayersNeedAHoldingFormWithABound) {
  DecisionQuestion q = question(2, 16);
  q.standings = {{"ideal", 2, "HOLDS", std::nullopt}, {"replay", 2, "FALSIFIED", 3.0}};
  const DeploymentDecision d = decide_deployment(q);
  for (const auto& degree : d.degrees) {
    EXPECT_TRUE(degree.form.empty());
    EXPECT_NE(degree.no_model_reason.find("no form HOLDS"), std::string::npos) << degree.no_model_reason;
    for (const auto& row : degree.rows) {
      EXPECT_FALSE(row.full_us) << "k=" << row.k << " b=" << row.batch;
      EXPECT_TRUE(row.run);  // the figure at the layers that ran is still given
    }
  }
}

TEST(DecideDeployment, FullModelIsMeasuredPlusTheMissingLayersInTheFormsTerms) {
  DecisionQuestion q = question(2, 16);
  q.standings = {{"ideal", 2, "HOLDS", 8.0}, {"replay", 2, "HOLDS", 5.0}, {"replay", 1, "HOLDS", 2.0}};
  const DeploymentDecision d = decide_deployment(q);
  const DegreeDecision& tp2 = d.degrees[1];
  EXPECT_EQ(tp2.form, "replay");
  const DecisionRow& b8 = tp2.rows[1];
  ASSERT_EQ(b8.batch, 8);
  EXPECT_FALSE(b8.measured());  // measured in batch, MODELLED in layers
  // replay at TP-2, b=8: compute 90, all-reduces 4 · 4.5 = 18, host 0:
  // missing = 2.8 · 90 + 7 · 18 = 378; full = 120 + 378 = 498; upper side 120 + 378 · 1.05.
  EXPECT_DOUBLE_EQ(*b8.full_us, 498);
  EXPECT_DOUBLE_EQ(*b8.full_high_us, 120 + 378 * 1.05);
  EXPECT_DOUBLE_EQ(b8.full_terms.compute_us, 90 * 3.8);
  EXPECT_DOUBLE_EQ(b8.full_terms.collective_us, 18 * 8 + 3);
}

TEST(DecideDeployment, SloChoosesTheMostTokensPerDeviceWithinIt) {
  DecisionQuestion q = question(16, 16);
  // 0.2 ms admits TP-1 at b=8 (180 µs) but not its b=33 (430 µs), and TP-2 up to b=8 (120 µs), not b=31.
  q.tpot_slo_ms = 0.2;
  const DeploymentDecision d = decide_deployment(q);
  ASSERT_EQ(d.choices.size(), 1u);
  const SloChoice& c = d.choices[0];
  ASSERT_TRUE(c.row);
  // TP-1 b=8: 44,444 tokens/s per device; TP-2 b=8: 33,333.
  EXPECT_EQ(c.row->k, 1);
  EXPECT_EQ(c.row->batch, 8);
  EXPECT_EQ(c.bottleneck, "compute");  // the SLO binds; the measured step is 80 % compute
  EXPECT_NE(c.prediction.find("TPOT ≤ 0.180 ms"), std::string::npos) << c.prediction;

  // A generous SLO lets memory bind: TP-1 at its largest batch.
  q.tpot_slo_ms = 10;
  const SloChoice wide = decide_deployment(q).choices[0];
  ASSERT_TRUE(wide.row);
  EXPECT_EQ(wide.row->batch, 33);
  EXPECT_EQ(wide.bottleneck, "memory capacity");
  EXPECT_NE(wide.prediction.find("MODELLED"), std::string::npos);

  // Below every figure: nothing is chosen, and the record says why.
  q.tpot_slo_ms = 0.01;
  const SloChoice none = decide_deployment(q).choices[0];
  EXPECT_FALSE(none.row);
  EXPECT_NE(none.reason.find("within 0.01 ms"), std::string::npos) << none.reason;
}

TEST(DecideDeployment, AnUnmeasuredDegreeIsModelledFromItsRegisteredPredictions) {
  DecisionQuestion q = question(16, 16);
  // TP-4, not measured: replay(4) = (100 + 10 b) / 4, all-reduces 4 × 3 · (1 + b) / 2, all-gather 9.
  ModelledDegree m{4, "ring model", {}, {}};
  for (int b : {1, 8}) {
    CellInputs cell;
    cell.batch = b;
    cell.context = 256;
    cell.inputs = {4, 100.0 + 10 * b, 0, (100.0 + 10 * b) / 4, 4, 3 * (1.0 + b) / 2, 1, 9};
    m.calibration.push_back(cell);
  }
  m.predictions = predict_all(m.calibration);
  q.registration.modelled_degrees.push_back(m);
  DecisionDegree d4;
  d4.k = 4;
  d4.measured = false;
  d4.line = {500, 0, 10, 1, 0};
  d4.layers = layer_scaling(16, 16, 100, 300);
  q.degrees.push_back(d4);
  q.standings = {{"replay", 2, "HOLDS", 5.0}};
  const DeploymentDecision d = decide_deployment(q);
  const DegreeDecision& tp4 = d.degrees[2];
  EXPECT_FALSE(tp4.measured);
  EXPECT_EQ(tp4.form, "replay");
  ASSERT_EQ(tp4.rows.size(), 3u);  // b = 1, 8 and the maximum, 9,500 / 267 = 35
  for (const auto& row : tp4.rows) EXPECT_FALSE(row.measured()) << "b=" << row.batch;
  // b=8: replay 45 + all-reduces 4 · 13.5 = 54 + all-gather 9 = 108 µs; upper side · 1.05.
  EXPECT_DOUBLE_EQ(*tp4.rows[1].full_us, 108);
  EXPECT_DOUBLE_EQ(*tp4.rows[1].full_high_us, 108 * 1.05);
  EXPECT_EQ(tp4.rows[2].batch, 35);
  // Without a form holding at every measured k > 1, no figure at all.
  q.standings = {{"replay", 2, "FALSIFIED", 5.0}};
  const DeploymentDecision none = decide_deployment(q);
  for (const auto& row : none.degrees[2].rows) EXPECT_FALSE(row.run);
}

TEST(DecideDeployment, WeightsAboveTheBudgetGiveNoRows) {
  DecisionQuestion q = question(16, 16);
  q.budget_bytes = 1200;  // TP-2's 1,500 B of weights do not fit; TP-1 has 200 B: not one 267 B sequence
  const DeploymentDecision d = decide_deployment(q);
  EXPECT_FALSE(d.degrees[1].capacity.fits);
  EXPECT_EQ(d.degrees[1].max_batch, std::vector<std::int64_t>{0});
  EXPECT_TRUE(d.degrees[1].rows.empty());
  EXPECT_TRUE(d.degrees[0].capacity.fits);
  EXPECT_EQ(d.degrees[0].max_batch, std::vector<std::int64_t>{0});
}

}  // namespace
}  // namespace tpb
