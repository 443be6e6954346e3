#include "step_time_simulator.hpp"

#include <algorithm>
#include <cmath>

#include "predictor/model_forms.hpp"
#include "predictor/random64.hpp"
#include "predictor/statistics.hpp"
#include "predictor/study_design.hpp"
#include "predictor/visit_order.hpp"
#include "sim_random.hpp"

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

NoiseModel two_level_noise() {
  // bench/archive/2026-12-04-verdict-rules-2-to-5 (tests/predictor/noise/fit_two_levels.py):
  // 1.44× apart, a change at 4.8 % of rounds (10 visits each), and at the
  // pause before the measurement in 4 of 10 reruns.
  NoiseModel m = fitted_noise();
  constexpr double kVisitsPerRound = static_cast<double>(kConditions) * kGridCells;
  m.two_levels = {.log_step = std::log(1.44), .switch_per_visit = 0.048 / kVisitsPerRound,
                  .pause_switch_probability = 0.4};
  return m;
}

namespace {

// One visit: each rank's own time and, at TP-2, the step (the slower rank
// plus the collectives) and each rank's time inside the collectives.
struct Visit {
  std::vector<double> rank_us = std::vector<double>(kRanks);
  double step_us = 0;
  std::vector<double> collective_wait_us = std::vector<double>(kRanks);
};

class StudyDraw {
 public:
  StudyDraw(const SimulatorConfig& config, std::uint64_t seed) : config_(config), rng_(seed) {
    const NoiseModel& n = config.noise;
    drift_ = n.drift_log_per_visit * (uniform_unit(rng_) < 0.5 ? -1.0 : 1.0);
    for (const Ar1& process : n.flicker) flicker_.push_back(process.log_sd * standard_normal(rng_));
    round_common_ = n.common.log_sd * standard_normal(rng_);  // stationary from the start
    step2_rounds_ = n.step2_rounds.log_sd * standard_normal(rng_);
    upper_level_ = uniform_unit(rng_) < 0.5;
    slow_launch_ = config.slow_rank.slowdown != 0.0 && uniform_unit(rng_) < config.slow_rank.launch_probability;
    slow_ = uniform_unit(rng_) < config.slow_rank.fraction;
  }

  bool slow_launch() const { return slow_launch_; }

  // The pause between calibration and measurement: the launch's level, and
  // perhaps the other of the two levels.
  void begin_measurement() {
    launch_shift_ = config_.noise.launch_log_sd * standard_normal(rng_);
    if (uniform_unit(rng_) < config_.noise.two_levels.pause_switch_probability) upper_level_ = !upper_level_;
  }

  // A new round: the processes over rounds move on one step.
  void begin_round() {
    const NoiseModel& n = config_.noise;
    round_common_ = ar1_step(round_common_, n.common.lag1, n.common.log_sd, rng_);
    step2_rounds_ = ar1_step(step2_rounds_, n.step2_rounds.lag1, n.step2_rounds.log_sd, rng_);
  }

  Visit visit(int cell, Condition condition) {
    const NoiseModel& n = config_.noise;
    const SlowRank& slow = config_.slow_rank;
    if (uniform_unit(rng_) < n.two_levels.switch_per_visit) upper_level_ = !upper_level_;
    // The slow rank's state: leaves slow at 1/sojourn, enters it so that the
    // chain spends `fraction` of the visits slow.
    const double leave = 1.0 / slow.sojourn_visits;
    const double enter = slow.fraction < 1.0 ? leave * slow.fraction / (1.0 - slow.fraction) : 1.0;
    slow_ = slow_ ? uniform_unit(rng_) >= leave : uniform_unit(rng_) < enter;

    const bool tp2 = condition == kStep2 || condition == kNoComm2;
    double level = drift_ * static_cast<double>(clock_++) + round_common_ + launch_shift_ +
                   (upper_level_ ? n.two_levels.log_step : 0.0) + (tp2 ? step2_rounds_ : 0.0);
    for (std::size_t i = 0; i < flicker_.size(); ++i) {
      flicker_[i] = ar1_step(flicker_[i], n.flicker[i].lag1, n.flicker[i].log_sd, rng_);
      level += flicker_[i];
    }
    const double z = standard_normal(rng_);
    level += n.independent_log_sd[static_cast<std::size_t>(cell)][condition] *
             (condition == kStep2 ? skewed(z, n.step2_skew) : z);
    if (uniform_unit(rng_) < n.spike_probability)
      level += n.spike_log_low + (n.spike_log_high - n.spike_log_low) * uniform_unit(rng_);

    std::array<double, kRanks> rank_factor{};
    for (int r = 0; r < kRanks; ++r)
      rank_factor[static_cast<std::size_t>(r)] =
          std::exp(level + n.rank_log_sd * standard_normal(rng_)) *
          (slow_launch_ && slow_ && r == slow.rank ? 1.0 + slow.slowdown : 1.0);

    const CellTruth& truth = config_.truth[static_cast<std::size_t>(cell)];
    Visit v;
    if (!tp2) {  // every rank runs it at once, each on its own
      const double truth_us = condition == kReplay2 ? truth.compute1_us / 2.0 : truth.compute1_us;
      for (int r = 0; r < kRanks; ++r) v.rank_us[static_cast<std::size_t>(r)] = truth_us * rank_factor[r];
      return v;
    }
    // TP-2: each rank computes its shard, then the group waits for the slowest.
    const double error = 1.0 + config_.true_error[static_cast<std::size_t>(cell)];
    const double collective_us = condition == kStep2 ? truth.collective_us * error * std::exp(level) : 0.0;
    for (int r = 0; r < kRanks; ++r)
      v.rank_us[static_cast<std::size_t>(r)] = truth.compute1_us / 2.0 * error * rank_factor[r];
    const double slowest = *std::max_element(v.rank_us.begin(), v.rank_us.end());
    v.step_us = slowest + collective_us;
    for (int r = 0; r < kRanks; ++r)
      v.collective_wait_us[static_cast<std::size_t>(r)] = collective_us + slowest - v.rank_us[r];
    return v;
  }

 private:
  const SimulatorConfig& config_;
  SplitMix64 rng_;
  double drift_ = 0;
  double round_common_ = 0;
  double step2_rounds_ = 0;
  double launch_shift_ = 0;
  bool upper_level_ = false;
  bool slow_launch_ = false;
  bool slow_ = false;
  std::vector<double> flicker_;
  long clock_ = 0;
};

// The registration sealed from the calibration's anchors (each the median
// over rounds of the group's slowest rank). k = 1 issues no collective.
Registration sealed_registration(const SimulatorConfig& config, const std::array<double, kGridCells>& compute1_us,
                                 const std::array<double, kGridCells>& replay2_us, std::uint64_t seed) {
  Registration r;
  r.workload.backend = "cpu";
  r.grid = {{1, 2}, {kBatches.begin(), kBatches.end()}, {kContext}};
  r.kill_switches = kill_switch_table(kDefaultKillSwitchPct);
  for (int k : r.grid.tp)
    for (std::size_t c = 0; c < kGridCells; ++c) {
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
                       .n_ar = k == 1 ? 0 : 1,
                       .t_ar_sweep_us = k == 1 ? 0.0 : config.truth[c].collective_us,
                       .n_ag = 0,
                       .t_ag_sweep_us = 0.0};
      r.calibration.push_back(inputs);
    }
  r.predictions = predict_all(r.calibration);
  r.design = make_rounds_design(config.rounds, 0.0, seed, kDefaultKillSwitchPct);
  return r;
}

double slowest(const std::vector<double>& rank_us) { return *std::max_element(rank_us.begin(), rank_us.end()); }

}  // namespace

SimulatedStudy simulate_study(const SimulatorConfig& config, std::uint64_t seed) {
  StudyDraw draw(config, seed);
  SimulatedStudy study;
  study.slow_launch = draw.slow_launch();

  // Calibration: rounds of the anchors, replay(2) and TP-1 --no-comm per cell.
  std::array<std::vector<double>, kGridCells> compute1, replay2;
  for (const auto& order : round_visit_orders(2 * kGridCells, config.calibration_rounds, seed ^ 0x63616c6962ULL)) {
    draw.begin_round();
    for (std::size_t index : order) {
      const auto cell = index / 2;
      const bool replay = index % 2 == 0;
      const Visit v = draw.visit(static_cast<int>(cell), replay ? kReplay2 : kCompute1);
      (replay ? replay2 : compute1)[cell].push_back(slowest(v.rank_us));
    }
  }
  std::array<double, kGridCells> sealed_compute1{}, sealed_replay2{};
  for (std::size_t c = 0; c < kGridCells; ++c) {
    sealed_compute1[c] = median(compute1[c]);
    sealed_replay2[c] = median(replay2[c]);
  }
  study.registration = sealed_registration(config, sealed_compute1, sealed_replay2, seed);

  // Measurement: every condition of every cell once per round.
  draw.begin_measurement();
  for (const auto& order : round_visit_orders(kConditions * kGridCells, config.rounds, seed)) {
    draw.begin_round();
    RoundObservation o;
    for (std::size_t index : order) {
      const auto cell = static_cast<int>(index) / kConditions;
      const auto condition = static_cast<Condition>(index % kConditions);
      const Visit v = draw.visit(cell, condition);
      const int b = kBatches[static_cast<std::size_t>(cell)];
      switch (condition) {
        case kStep1:  // TP-1 on every rank at once; the TP-1 step is group 0's, rank 0
          o.step_us[{1, b, kContext}] = v.rank_us[0];
          o.step1_rank_us[{b, kContext}] = v.rank_us;
          break;
        case kStep2:
          o.step_us[{2, b, kContext}] = v.step_us;
          o.rank_collective_us[{2, b, kContext}] = v.collective_wait_us;
          break;
        case kNoComm2:
          o.nocomm_rank_us[{2, b, kContext}] = v.rank_us;
          break;
        case kReplay2:
          o.replay_rank_us[{2, b, kContext}] = o.host_rank_us[{2, b, kContext}] = v.rank_us;
          break;
        case kCompute1:
          o.compute1_rank_us[{b, kContext}] = o.host_rank_us[{1, b, kContext}] = v.rank_us;
          break;
        case kConditions:
          break;
      }
    }
    study.rounds.push_back(std::move(o));
  }
  return study;
}

bool aa_and_ideal_hold(const RoundsEvaluation& evaluation) {
  return evaluation.aa.holds && find_verdict(evaluation, "ideal", 2).outcome == Outcome::holds;
}

}  // namespace tpb::sim
