#include "step_time_simulator.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "predictor/cell_verdict.hpp"
#include "predictor/decision_controls.hpp"
#include "predictor/paired_errors.hpp"
#include "predictor/random64.hpp"
#include "predictor/statistics.hpp"
#include "predictor/study_stopping.hpp"
#include "predictor/visit_order.hpp"

namespace tpb::sim {
namespace {

double standard_normal(SplitMix64& rng) {  // Box–Muller
  const double u1 = 1.0 - uniform_unit(rng);  // (0, 1]
  const double u2 = uniform_unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// The conditions of one grid cell, each with its noise-free time in µs.
// The judged form predicts the TP-k step from the TP-k anchor; the A/A
// control compares TP-1 with its own anchor (same truth).
enum Condition { kStepK, kAnchorK, kStep1, kAnchor1, kConditionsPerCell };

struct Timeline {
  double drift_per_visit = 0;  // relative drift per visit index
  double stretch_begin = 0;    // visit indices of the slow stretch
  double stretch_end = 0;
};

class StudyDraw {
 public:
  StudyDraw(const SimulatorConfig& config, std::uint64_t seed) : config_(config), rng_(seed) {
    const int anchors = 2 * config.grid_cells;
    const int per_round = kConditionsPerCell * config.grid_cells;
    const double total = config.calibration_rounds * anchors + config.rule.max_rounds() * per_round;
    const double drift = config.max_drift * uniform_unit(rng_) * (uniform_unit(rng_) < 0.5 ? -1.0 : 1.0);
    timeline_.drift_per_visit = drift / total;
    timeline_.stretch_begin = uniform_unit(rng_) * total * (1.0 - config.stretch_fraction);
    timeline_.stretch_end = timeline_.stretch_begin + total * config.stretch_fraction;
    error_sign_ = uniform_unit(rng_) < 0.5 ? -1.0 : 1.0;
  }

  double truth_us(int cell, int condition) const {
    const double step_k = 2000.0 * (cell + 1);  // distinct cells; only ratios matter
    const double step_1 = 3500.0 * (cell + 1);
    switch (condition) {
      case kStepK: return step_k;
      case kAnchorK: return step_k * (1.0 + error_sign_ * config_.true_error);
      default: return step_1;
    }
  }

  // One visit at the next point of the time line: median over its iterations.
  double visit(int cell, int condition) {
    const double t = clock_++;
    double factor = 1.0 + timeline_.drift_per_visit * t;
    if (t >= timeline_.stretch_begin && t < timeline_.stretch_end) factor *= config_.stretch_factor;
    std::vector<double> iterations(static_cast<std::size_t>(config_.iterations_per_visit));
    for (double& value : iterations) {
      value = truth_us(cell, condition) * factor * std::exp(config_.spread * standard_normal(rng_));
      if (uniform_unit(rng_) < config_.spike_probability)
        value *= config_.spike_low + (config_.spike_high - config_.spike_low) * uniform_unit(rng_);
    }
    return median(iterations);
  }

  SplitMix64& rng() { return rng_; }

 private:
  const SimulatorConfig& config_;
  SplitMix64 rng_;
  Timeline timeline_;
  double error_sign_ = 1.0;
  double clock_ = 0;
};

// values[round][cell][condition]
using RoundValues = std::vector<std::vector<std::vector<double>>>;

RoundValues run_rounds(StudyDraw& draw, int rounds, int cells, std::span<const int> conditions) {
  const auto per_round = static_cast<std::size_t>(cells) * conditions.size();
  RoundValues values(static_cast<std::size_t>(rounds),
                     std::vector<std::vector<double>>(static_cast<std::size_t>(cells),
                                                      std::vector<double>(kConditionsPerCell, 0.0)));
  for (auto& round : values)
    for (const std::size_t visit : fisher_yates_order(per_round, draw.rng())) {
      const auto cell = visit / conditions.size();
      const int condition = conditions[visit % conditions.size()];
      round[cell][static_cast<std::size_t>(condition)] = draw.visit(static_cast<int>(cell), condition);
    }
  return values;
}

}  // namespace

StudyOutcome simulate_study(const SimulatorConfig& config, std::uint64_t seed) {
  StudyDraw draw(config, seed);
  const int cells = config.grid_cells;
  const int anchors[] = {kAnchorK, kAnchor1};
  const int all[] = {kStepK, kAnchorK, kStep1, kAnchor1};
  const RoundValues calibration = run_rounds(draw, config.calibration_rounds, cells, anchors);
  const RoundValues measured = run_rounds(draw, config.rule.max_rounds(), cells, all);

  // Sealed numbers: each anchor's median over the calibration rounds.
  std::vector<std::vector<double>> sealed(static_cast<std::size_t>(cells), std::vector<double>(kConditionsPerCell));
  for (std::size_t cell = 0; cell < sealed.size(); ++cell)
    for (const int condition : anchors) {
      std::vector<double> rounds;
      for (const auto& round : calibration) rounds.push_back(round[cell][static_cast<std::size_t>(condition)]);
      sealed[cell][static_cast<std::size_t>(condition)] = median(rounds);
    }

  StudyOutcome outcome;
  for (const int checkpoint : config.rule.checkpoints) {
    const double alpha =
        decision_alpha(config.rule, config.family_cells, checkpoint, checkpoint == config.rule.max_rounds());
    std::vector<std::vector<RoundCellTimes>> judged(static_cast<std::size_t>(checkpoint)), aa(judged.size());
    std::vector<std::vector<double>> step_k(judged.size());
    for (std::size_t r = 0; r < judged.size(); ++r)
      for (std::size_t cell = 0; cell < static_cast<std::size_t>(cells); ++cell) {
        const auto& v = measured[r][cell];
        judged[r].push_back({v[kStepK], v[kAnchorK], sealed[cell][kAnchorK]});
        aa[r].push_back({v[kStep1], v[kAnchor1], sealed[cell][kAnchor1]});
        step_k[r].push_back(v[kStepK]);
      }
    const auto evidence = [&config](const std::vector<std::vector<RoundCellTimes>>& times) {
      CellEvidence e;
      if (config.rule.version == 2)
        e.errors = paired_round_errors(times);
      else
        e.log_ratios = paired_log_ratios(times);
      return e;
    };
    const CellEvidence aa_evidence = evidence(aa);
    const AaControl aa_result = aa_control({aa_evidence}, config.rule, alpha);
    StudyControls controls;
    controls.aa_holds = aa_result.holds;
    controls.aa_upper_pct = aa_result.upper_pct;
    if (!power_check(step_k, config.rule, alpha).passes()) controls.unpowered_k.push_back(2);
    const CellVerdict verdicts[] = {judge_cell(evidence(judged), gates_for(2, controls), config.rule, alpha),
                                    judge_cell(aa_evidence, gates_for(1, controls), config.rule, alpha)};
    outcome.verdict = verdicts[0].outcome;
    outcome.reason = verdicts[0].reason;
    outcome.rounds = checkpoint;
    if (should_stop(config.rule, checkpoint, verdicts)) break;
  }

  // The old rule on the same data: the first calibration pass against the
  // first measurement pass, point MAPE against the kill switch.
  std::vector<double> predicted, step;
  for (std::size_t cell = 0; cell < static_cast<std::size_t>(cells); ++cell) {
    predicted.push_back(calibration.front()[cell][kAnchorK]);
    step.push_back(measured.front()[cell][kStepK]);
  }
  outcome.point_rule =
      mape_pct(predicted, step) > config.rule.kill_switch_pct ? Outcome::falsified : Outcome::holds;
  return outcome;
}

}  // namespace tpb::sim
