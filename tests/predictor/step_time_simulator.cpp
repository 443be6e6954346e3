#include "step_time_simulator.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <stdexcept>
#include <tuple>

#include "common/choices.hpp"
#include "predictor/alpha_spending.hpp"
#include "predictor/form_applicability.hpp"
#include "predictor/form_error.hpp"
#include "predictor/model_forms.hpp"
#include "predictor/random64.hpp"
#include "predictor/statistics.hpp"
#include "predictor/study_stopping.hpp"
#include "predictor/verdict.hpp"
#include "predictor/visit_order.hpp"

namespace tpb::sim {

NoiseModel fitted_noise() {
  // FITTED-NOISE-BEGIN (tests/predictor/noise/fit_noise.py prints this block)
  NoiseModel m;
  m.independent_log_sd = {{{0.0050, 0.0635, 0.0242, 0.0050, 0.0050}, {0.0050, 0.0050, 0.0050, 0.0050, 0.0050}}};
  m.common = {0.1441, 0.8300};
  m.flicker = {{0.0337, 0.6065}, {0.0194, 0.9692}};
  m.spike_probability = 0.0086;
  m.spike_log_low = 0.194;
  m.spike_log_high = 0.259;
  m.rank_log_sd = 0.0404;
  m.drift_log_per_visit = 0.000072;
  return m;
  // FITTED-NOISE-END
}

std::array<CellTruth, kGridCells> fitted_truth() {
  // FITTED-TRUTH-BEGIN
  return {{{61925.5, 63.2}, {71105.1, 180.6}}};
  // FITTED-TRUTH-END
}

namespace {

double standard_normal(SplitMix64& rng) {  // Box–Muller
  const double u1 = 1.0 - uniform_unit(rng);  // (0, 1]
  const double u2 = uniform_unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// One visit's single timed step: each rank's own time, what the stage
// records as t_step (rank 0 alone, or the slower rank of a TP-2 group), and
// at TP-2 each rank's time inside the collectives.
struct Visit {
  std::array<double, 2> rank_us{};
  double step_us = 0;
  std::array<double, 2> collective_wait_us{};
};

class StudyDraw {
 public:
  StudyDraw(const SimulatorConfig& config, std::uint64_t seed) : config_(config), rng_(seed) {
    error_sign_ = uniform_unit(rng_) < 0.5 ? -1.0 : 1.0;
    drift_ = config.noise.drift_log_per_visit * (uniform_unit(rng_) < 0.5 ? -1.0 : 1.0);
    for (const Ar1& process : config.noise.flicker) flicker_.push_back(process.log_sd * standard_normal(rng_));
    round_common_ = config.noise.common.log_sd * standard_normal(rng_);  // stationary from the start
    upper_level_ = uniform_unit(rng_) < 0.5;
    // A TP-2 step waits for the slower rank; its typical wait is part of the
    // step's true cost, so the slower of two ranks is centred on its median
    // Φ⁻¹(√½)·σ and a random imbalance adds spread, not error.
    max_of_two_median_ = normal_quantile(std::sqrt(0.5)) * config.noise.rank_log_sd;
  }

  SplitMix64& rng() { return rng_; }

  // A new round: its common part moves on one step.
  void begin_round() {
    const Ar1& common = config_.noise.common;
    round_common_ = common.lag1 * round_common_ +
                    std::sqrt(1.0 - common.lag1 * common.lag1) * common.log_sd * standard_normal(rng_);
    if (uniform_unit(rng_) < config_.noise.two_levels.switch_probability) upper_level_ = !upper_level_;
  }

  Visit visit(int cell, Condition condition) {
    const NoiseModel& noise = config_.noise;
    double level = drift_ * static_cast<double>(clock_++) + round_common_ +
                   (upper_level_ ? noise.two_levels.log_step : 0.0);
    for (std::size_t i = 0; i < flicker_.size(); ++i) {
      const Ar1& process = noise.flicker[i];
      flicker_[i] = process.lag1 * flicker_[i] +
                    std::sqrt(1.0 - process.lag1 * process.lag1) * process.log_sd * standard_normal(rng_);
      level += flicker_[i];
    }
    level += noise.independent_log_sd[static_cast<std::size_t>(cell)][condition] * standard_normal(rng_);
    if (uniform_unit(rng_) < noise.spike_probability)
      level += noise.spike_log_low + (noise.spike_log_high - noise.spike_log_low) * uniform_unit(rng_);
    const double factor = std::exp(level);
    const std::array<double, 2> rank_noise{noise.rank_log_sd * standard_normal(rng_),
                                           noise.rank_log_sd * standard_normal(rng_)};

    const CellTruth& truth = config_.truth[static_cast<std::size_t>(cell)];
    Visit v;
    if (condition == kStep1 || condition == kReplay2 || condition == kCompute1) {
      // Every rank runs it at once, each on its own; the stage records rank 0.
      const double truth_us = condition == kReplay2 ? truth.compute1_us / 2.0 : truth.compute1_us;
      for (int r = 0; r < 2; ++r) v.rank_us[r] = truth_us * factor * std::exp(rank_noise[r]);
      v.step_us = v.rank_us[0];
      return v;
    }
    // TP-2: each rank computes its half, then the group waits for the slower.
    const double collective_us = condition == kStep2 ? truth.collective_us * factor : 0.0;
    const double step_truth_us =
        condition == kStep2
            ? (truth.compute1_us / 2.0 + truth.collective_us) *
                  (1.0 + error_sign_ * config_.true_error[static_cast<std::size_t>(cell)])
            : truth.compute1_us / 2.0;
    const double compute_us = step_truth_us * factor - collective_us;
    for (int r = 0; r < 2; ++r)
      v.rank_us[r] = compute_us * std::exp(rank_noise[r] - max_of_two_median_) *
                     (r == 1 ? 1.0 + config_.rank1_slowdown : 1.0);
    const double slowest = std::max(v.rank_us[0], v.rank_us[1]);
    v.step_us = slowest + collective_us;
    for (int r = 0; r < 2; ++r) v.collective_wait_us[r] = collective_us + slowest - v.rank_us[r];
    return v;
  }

 private:
  const SimulatorConfig& config_;
  SplitMix64 rng_;
  double error_sign_ = 1.0;
  double drift_ = 0;
  double round_common_ = 0;
  bool upper_level_ = false;
  double max_of_two_median_ = 0;
  std::vector<double> flicker_;
  long clock_ = 0;
};

double sample_sd(const std::vector<double>& values) {
  double mean = 0.0;
  for (double v : values) mean += v / static_cast<double>(values.size());
  double squares = 0.0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

Registration sealed_registration(const SimulatorConfig& config, const std::array<double, kGridCells>& compute1_us,
                                 const std::array<double, kGridCells>& replay2_us) {
  Registration r;
  r.workload.backend = "cpu";
  r.grid = {{1, 2}, {kBatches.begin(), kBatches.end()}, {kContext}};
  r.kill_switches = kill_switch_table(kDefaultKillSwitchPct);
  for (int k : r.grid.tp)
    for (int cell = 0; cell < kGridCells; ++cell) {
      const auto c = static_cast<std::size_t>(cell);
      CellInputs inputs;
      inputs.batch = kBatches[c];
      inputs.context = kContext;
      // A TP-1 shard is the whole model: its replay anchor is t_compute(1).
      // On CPU the host issue time holds the compute, so it equals the replay.
      const double replay_us = k == 1 ? compute1_us[c] : replay2_us[c];
      inputs.inputs = {.k = k,
                       .t_compute1_us = compute1_us[c],
                       .t_host_us = replay_us,
                       .t_replay_us = replay_us,
                       .n_ar = 1,
                       .t_ar_sweep_us = k == 1 ? 0.0 : config.truth[c].collective_us,
                       .n_ag = 0,
                       .t_ag_sweep_us = 0.0};
      r.calibration.push_back(inputs);
    }
  r.predictions = predict_all(r.calibration);
  return r;
}

int judged_cells(const Registration& r, int rule_version) {
  const BackendKind backend = parse_backend_kind("registered backend", r.workload.backend);
  int judged = 0;
  for (const ModelForm& form : model_forms())
    for (int k : r.grid.tp)
      judged += not_applicable_reason(form.name, backend).empty() && counted_in_family(rule_version, form.name, k);
  return judged;
}

// Whether a version-3 look after `rounds` rounds at `alpha` can form an
// interval at all, asked of form_error_interval itself. The early looks of
// O'Brien–Fleming spend so little α that the resamples a tail needs exceed
// its cap; such a look decides nothing (every cell too_few_rounds), yet it
// would resample at the cap for every interval. Skipping it leaves every
// verdict as it is and keeps the simulator fast. An α that underflows to 0
// (a look at a tiny share of a long plan) forms nothing either.
bool look_can_form(const DecisionRule& rule, int rounds, double alpha) {
  if (!(alpha > 0.0)) return false;
  static std::map<std::tuple<int, double, int, std::uint64_t>, bool> known;
  const auto key = std::make_tuple(rounds, alpha, rule.bootstrap.resamples, rule.bootstrap.seed);
  auto found = known.find(key);
  if (found == known.end()) {
    const LogRatios zeros(static_cast<std::size_t>(rounds), std::vector<double>{0.0});
    const RoundResampling resampling{rule.bootstrap.resamples, rule.bootstrap.seed};
    found = known.emplace(key, form_error_interval(zeros, alpha, resampling, rule.kill_switch_pct)
                                   .unsigned_error.formed)
                .first;
  }
  return found->second;
}

}  // namespace

SimulatedStudy simulate_study(const SimulatorConfig& config, std::uint64_t seed) {
  StudyDraw draw(config, seed);
  SimulatedStudy study;

  // Calibration: rounds of the anchors, replay(2) and TP-1 --no-comm per cell.
  std::array<std::vector<double>, kGridCells> compute1, replay2, proxy;
  const auto calibration_orders =
      round_visit_orders(2 * kGridCells, config.calibration_rounds, seed ^ 0x63616c6962ULL);
  for (const auto& order : calibration_orders) {
    draw.begin_round();
    std::array<double, kGridCells> round_compute1{}, round_replay2{};
    for (std::size_t index : order) {
      const int cell = static_cast<int>(index) / 2;
      const bool replay = index % 2 == 0;
      const double t = draw.visit(cell, replay ? kReplay2 : kCompute1).step_us;
      (replay ? round_replay2 : round_compute1)[static_cast<std::size_t>(cell)] = t;
    }
    for (std::size_t c = 0; c < kGridCells; ++c) {
      compute1[c].push_back(round_compute1[c]);
      replay2[c].push_back(round_replay2[c]);
      proxy[c].push_back(std::log(round_replay2[c]) - std::log(round_compute1[c]));
    }
  }
  std::array<double, kGridCells> sealed_compute1{}, sealed_replay2{};
  for (std::size_t c = 0; c < kGridCells; ++c) {
    sealed_compute1[c] = median(compute1[c]);
    sealed_replay2[c] = median(replay2[c]);
    study.proxy_log_sd[c] = sample_sd(proxy[c]);
  }
  study.registration = sealed_registration(config, sealed_compute1, sealed_replay2);

  // Measurement: every condition of every cell once per round.
  std::array<std::vector<double>, kGridCells> paired;
  const auto orders = round_visit_orders(kConditions * kGridCells, config.measurement_rounds, seed);
  for (const auto& order : orders) {
    draw.begin_round();
    RoundObservation o;
    for (std::size_t index : order) {
      const int cell = static_cast<int>(index) / kConditions;
      const auto condition = static_cast<Condition>(index % kConditions);
      const Visit v = draw.visit(cell, condition);
      const int b = kBatches[static_cast<std::size_t>(cell)];
      switch (condition) {
        case kStep1:
          o.step_us[{1, b, kContext}] = v.step_us;
          o.same_node_rank_us[{b, kContext}] = {v.rank_us.begin(), v.rank_us.end()};
          break;
        case kStep2:
          o.step_us[{2, b, kContext}] = v.step_us;
          o.rank_collective_us[{2, b, kContext}] = {v.collective_wait_us.begin(), v.collective_wait_us.end()};
          break;
        case kNoComm2:  // visited (it takes its place in the round), judged by nothing here
          break;
        case kReplay2:
          o.replay_us[{2, b, kContext}] = o.host_us[{2, b, kContext}] = v.step_us;
          break;
        case kCompute1:
          o.compute1_us[{b, kContext}] = v.step_us;
          o.replay_us[{1, b, kContext}] = o.host_us[{1, b, kContext}] = v.step_us;
          break;
        case kConditions:
          break;
      }
    }
    for (std::size_t c = 0; c < kGridCells; ++c) {
      const int b = kBatches[c];
      const double predicted = o.compute1_us.at({b, kContext}) / 2.0 + config.truth[c].collective_us;
      paired[c].push_back(std::log(o.step_us.at({2, b, kContext}) / predicted));
    }
    study.rounds.push_back(std::move(o));
  }
  for (std::size_t c = 0; c < kGridCells; ++c) study.paired_log_sd[c] = sample_sd(paired[c]);
  return study;
}

StudyOutcome judge_study(const SimulatedStudy& study, const DecisionRule& rule) {
  if (rule.max_rounds() > static_cast<int>(study.rounds.size()))
    throw std::invalid_argument("the rule's last checkpoint lies beyond the simulated rounds");
  RoundsDesign design;
  design.min_rounds = rule.checkpoints.front();
  design.max_rounds = rule.max_rounds();
  design.rule = rule;
  const int judged = judged_cells(study.registration, rule.version);
  const auto first = [&study](int n) {
    return std::vector<RoundObservation>(study.rounds.begin(), study.rounds.begin() + n);
  };
  for (int n : rule.checkpoints) {
    if (n < rule.max_rounds()) {
      if (rule.version >= 3 && !look_can_form(rule, n, decision_alpha(rule, judged, n, false))) continue;
      const RoundsEvaluation look = evaluate_rounds(study.registration, design, first(n), false);
      std::vector<CellVerdict> verdicts;
      for (const FormKVerdict& cell : look.cells) verdicts.push_back(cell.verdict);
      if (!should_stop(rule, n, verdicts)) continue;
    }
    return {evaluate_rounds(study.registration, design, first(n), true), n};
  }
  throw std::invalid_argument("a rule without checkpoints");
}

const CellVerdict& verdict_of(const RoundsEvaluation& evaluation, const char* form, int k) {
  for (const FormKVerdict& cell : evaluation.cells)
    if (cell.form == form && cell.k == k) return cell.verdict;
  throw std::invalid_argument("no such cell in the evaluation");
}

}  // namespace tpb::sim
