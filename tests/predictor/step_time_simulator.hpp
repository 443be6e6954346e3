#pragma once
// A simulator of the quick start's study on this machine, whose truth is
// known. It lays one study out visit by visit (calibration rounds of the
// anchors, then measurement rounds of the ten quick-start conditions in the
// sealed Fisher–Yates order), draws every visit's single timed step from a
// noise model fitted to measurements made here (tests/predictor/noise/), and
// judges the rounds with evaluate_rounds, look by look, as the measure and
// verdict stages do. "True error" is the TP-2 step's noise-free time against
// the prediction on noise-free anchors.
#include <array>
#include <cstdint>
#include <vector>

#include "predictor/decision_rule.hpp"
#include "predictor/registration.hpp"
#include "predictor/round_evaluation.hpp"

namespace tpb::sim {

// The quick start's grid: k {1, 2} × batch {1, 4} × context 256, and per
// grid cell the five conditions a round visits.
inline constexpr std::array<int, 2> kBatches{1, 4};
inline constexpr int kContext = 256;
inline constexpr int kGridCells = static_cast<int>(kBatches.size());
enum Condition { kStep1, kStep2, kNoComm2, kReplay2, kCompute1, kConditions };

// One AR(1) process over the visit sequence, stationary at `log_sd`.
struct Ar1 {
  double log_sd = 0;
  double lag1 = 0;  // autocorrelation from one visit to the next
};

// The noise of one timed step in ln t; fitted by tests/predictor/noise/fit_noise.py.
struct NoiseModel {
  // Round-to-round noise of each condition beyond the parts below, per grid cell.
  std::array<std::array<double, kConditions>, kGridCells> independent_log_sd{};
  // The level of a round, shared by every condition in it: an AR(1) over
  // rounds (lag1 from one round to the next), so it moves slowly, as the
  // machine's does, and carries on from the calibration into the measurement.
  Ar1 common;
  std::vector<Ar1> flicker;  // level changes: a sum of AR(1) processes over visits
  double spike_probability = 0;  // a visit spikes by exp(U(spike_log_low, spike_log_high))
  double spike_log_low = 0;
  double spike_log_high = 0;
  // Per visit and rank, independent: TP-1 on every rank reads rank 0's, a
  // TP-2 step waits for the slower of its two ranks.
  double rank_log_sd = 0;
  double drift_log_per_visit = 0;  // common linear drift; the sign is drawn per study
  // Two levels a round can sit at, shared by every condition in it: the host
  // placing the two vCPUs near (slower) or far. The level is `log_step`
  // higher at one than at the other, starts at either with equal chance, and
  // changes at a round's start with `switch_probability`. Off (0) in the
  // fitted model, whose rounds were measured on a machine that stayed at one;
  // tests set it to what docs/STATISTICS.md ("Two levels") measured.
  struct TwoLevels {
    double log_step = 0;
    double switch_probability = 0;
  } two_levels;
};

NoiseModel fitted_noise();  // this machine's

// Noise-free times of one grid cell, µs.
struct CellTruth {
  double compute1_us = 0;    // TP-1 --no-comm, the anchor t_compute(1)
  double collective_us = 0;  // the sealed collective term coll(2)
};
std::array<CellTruth, kGridCells> fitted_truth();

struct SimulatorConfig {
  NoiseModel noise = fitted_noise();
  std::array<CellTruth, kGridCells> truth = fitted_truth();
  // Per grid cell, |noise-free TP-2 step / the prediction of `ideal` and
  // `replay` on noise-free anchors − 1|; one sign per study, drawn at random.
  std::array<double, kGridCells> true_error{0.05, 0.05};
  double rank1_slowdown = 0;   // rank 1 computes this much slower in every TP-2 step (systematic)
  int calibration_rounds = 10;
  int measurement_rounds = 60;  // visits drawn; the rule's checkpoints judge a prefix
};

// One study's data, before any judging.
struct SimulatedStudy {
  Registration registration;  // sealed from the calibration rounds' medians; design left to the judge
  std::vector<RoundObservation> rounds;
  // The planner's proxy per grid cell: SD over calibration rounds of
  // ln t_replay(2) − ln t_compute(1).
  std::array<double, kGridCells> proxy_log_sd{};
  // Over the measurement rounds, per grid cell: SD of ln(TP-2 step / `ideal`'s paired prediction).
  std::array<double, kGridCells> paired_log_sd{};
};

SimulatedStudy simulate_study(const SimulatorConfig& config, std::uint64_t seed);

struct StudyOutcome {
  RoundsEvaluation evaluation;  // the final look's, as the verdict stage judges the file
  int rounds = 0;               // rounds measured when the study stopped
};

// The study judged at the rule's checkpoints (a prefix of study.rounds, the
// last checkpoint ≤ their count): at each look evaluate_rounds as a
// non-final look; the first where every cell is decided, or the last
// checkpoint, ends the study, and its rounds are judged again as the final
// look (which spends the α left).
StudyOutcome judge_study(const SimulatedStudy& study, const DecisionRule& rule);

// The verdict of (form, k) in an evaluation; throws when absent.
const CellVerdict& verdict_of(const RoundsEvaluation& evaluation, const char* form, int k);

}  // namespace tpb::sim
