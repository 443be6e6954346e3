#pragma once
// A simulator of noisy, spiky, drifting step times whose truth is known. It
// lays out one study on a time line (calibration rounds of the anchor
// conditions, then measurement rounds in a randomized order), draws every
// iteration's time, and feeds the per-round medians to the same decision
// code that judges real files. "True error" is the form's error against the
// noise-free step time.
#include <cstdint>

#include "predictor/decision_rule.hpp"

namespace tpb::sim {

struct SimulatorConfig {
  double true_error = 0.05;        // |prediction on noise-free terms / noise-free step − 1|
  int grid_cells = 2;              // the quick start's grid: batch 1, 8 × context 256
  int iterations_per_visit = 10;   // the quick start's -n 10
  int calibration_rounds = 8;      // rounds of anchor visits before registration
  double spread = 0.10;            // per-iteration noise: log-normal with this σ (≈ 10 % CV)
  double spike_probability = 0.05; // share of iterations that spike ...
  double spike_low = 1.5;          // ... by a factor uniform in [spike_low, spike_high]
  double spike_high = 3.0;
  double stretch_factor = 1.30;    // a slow stretch (+30 %) ...
  double stretch_fraction = 1.0 / 3.0;  // ... lasting this share of the run, placed at random
  double max_drift = 0.10;         // linear drift over the run, magnitude uniform in [0, max], either sign
  int family_cells = 10;           // judged (form, k) cells sharing α: 5 forms × k ∈ {1, 2}
  DecisionRule rule;
};

struct StudyOutcome {
  Outcome verdict = Outcome::inconclusive;    // the judged cell, with the controls' gates
  InconclusiveReason reason = InconclusiveReason::none;
  int rounds = 0;                             // rounds measured when the study stopped
  Outcome point_rule = Outcome::inconclusive; // the old rule: one-pass MAPE vs kill switch
};

// One simulated study, all randomness from `seed`.
StudyOutcome simulate_study(const SimulatorConfig& config, std::uint64_t seed);

}  // namespace tpb::sim
