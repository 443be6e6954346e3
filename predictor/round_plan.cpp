#include "predictor/round_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "predictor/alpha_spending.hpp"
#include "predictor/study_design.hpp"

namespace tpb {
namespace {

constexpr int kRoundsSearched = 100000;

double log_gap(double kill_switch_pct, double effect_pct) {
  return std::log1p(kill_switch_pct / 100.0) - std::log1p(effect_pct / 100.0);
}

// Whether n rounds decide the effect at the last look's α of MIN…n.
bool enough(const RoundPlanInputs& in, double spread_log_sd, int n) {
  const double alpha =
      look_alpha(in.family_alpha, checkpoints_between(std::min(in.min_rounds, n), n), n, true) / in.judged_cells;
  const double z = normal_quantile(1.0 - alpha / 2.0) + normal_quantile(in.power);
  return z * kMedianEfficiency * spread_log_sd / std::sqrt(static_cast<double>(n)) <=
         log_gap(in.kill_switch_pct, in.effect_pct);
}

}  // namespace

int rounds_for_effect(const RoundPlanInputs& in, double spread_log_sd) {
  // The α of the last look grows with n and the half-width shrinks, so the
  // first n that is enough is the answer; doubling then bisecting finds it.
  int high = std::max(2, in.min_rounds);
  while (!enough(in, spread_log_sd, high)) {
    if (high >= kRoundsSearched) return -1;
    high = std::min(kRoundsSearched, high * 2);
  }
  int low = 1;
  while (high - low > 1) {
    const int middle = (low + high) / 2;
    (enough(in, spread_log_sd, middle) ? high : low) = middle;
  }
  return high;
}

RoundPlan plan_rounds(const RoundPlanInputs& in) {
  if (!(in.effect_pct > 0.0 && in.effect_pct < in.kill_switch_pct))
    throw UsageError(fmt::format("--effect: {} % is not between 0 and the kill switch ({} %)", in.effect_pct,
                                 in.kill_switch_pct));
  TPB_CHECK(!in.cell_log_sd.empty() && in.judged_cells > 0 && in.min_rounds >= 2 && in.max_rounds >= in.min_rounds,
            "round plan without cells, judged cells or a rounds range");
  RoundPlan plan;
  plan.effect_pct = in.effect_pct;
  plan.power = in.power;
  double sum_squares = 0.0;
  for (double sd : in.cell_log_sd) {
    TPB_CHECK(sd > 0.0 && std::isfinite(sd), fmt::format("calibration spread {} is not positive", sd));
    sum_squares += sd * kPlanInflation * sd * kPlanInflation;
  }
  plan.spread_log_sd = std::sqrt(sum_squares) / static_cast<double>(in.cell_log_sd.size());
  plan.needed_rounds = rounds_for_effect(in, plan.spread_log_sd);
  plan.planned_rounds =
      plan.needed_rounds < 0 ? in.max_rounds : std::clamp(plan.needed_rounds, in.min_rounds, in.max_rounds);
  plan.seconds_per_round = in.seconds_per_round;
  if (in.time_budget_s > 0 && in.seconds_per_round > 0)
    plan.budget_rounds = std::max(1, static_cast<int>(in.time_budget_s / in.seconds_per_round));
  // What the rounds actually run can resolve, when they are fewer than needed.
  const int available = plan.exceeds_budget() ? plan.budget_rounds : plan.planned_rounds;
  if (plan.needed_rounds < 0 || plan.needed_rounds > available) {
    RoundPlanInputs probe = in;
    double low = in.kill_switch_pct, high = 1000.0;
    for (int i = 0; i < 60; ++i) {
      probe.kill_switch_pct = 0.5 * (low + high);
      probe.effect_pct = probe.kill_switch_pct * in.effect_pct / in.kill_switch_pct;
      (enough(probe, plan.spread_log_sd, std::max(available, 2)) ? high : low) = probe.kill_switch_pct;
    }
    plan.resolvable_kill_switch_pct = high;
  }
  return plan;
}

nlohmann::ordered_json round_plan_json(const RoundPlan& p) {
  return {{"proxy", "inflation x SD over calibration rounds of ln t_replay(k) - ln t_compute(1), per grid cell"},
          {"inflation", p.inflation},
          {"power", p.power},
          {"effect_pct", p.effect_pct},
          {"spread_log_sd", p.spread_log_sd},
          {"needed_rounds", p.needed_rounds},
          {"planned_rounds", p.planned_rounds},
          {"seconds_per_round", p.seconds_per_round},
          {"budget_rounds", p.budget_rounds},
          {"resolvable_kill_switch_pct", p.resolvable_kill_switch_pct}};
}

RoundPlan parse_round_plan(const nlohmann::ordered_json& s) {
  const auto field = [&s](const char* name) -> const nlohmann::ordered_json& {
    if (!s.contains(name)) throw UsageError(fmt::format("registration: round plan lacks field '{}'", name));
    return s.at(name);
  };
  try {
    RoundPlan p;
    p.inflation = field("inflation").get<double>();
    p.power = field("power").get<double>();
    p.effect_pct = field("effect_pct").get<double>();
    p.spread_log_sd = field("spread_log_sd").get<double>();
    p.needed_rounds = field("needed_rounds").get<int>();
    p.planned_rounds = field("planned_rounds").get<int>();
    p.seconds_per_round = field("seconds_per_round").get<double>();
    p.budget_rounds = field("budget_rounds").get<int>();
    p.resolvable_kill_switch_pct = field("resolvable_kill_switch_pct").get<double>();
    return p;
  } catch (const nlohmann::json::exception&) {
    throw UsageError("registration: a round plan field has the wrong type");
  }
}

std::string round_plan_line(const RoundPlan& p, double kill_switch_pct) {
  const std::string needed = p.needed_rounds < 0 ? std::string("more than 100000") : std::to_string(p.needed_rounds);
  std::string line = fmt::format(
      "planned {} rounds: an error of {:.1f} % needs {} to be told from the {:.0f} % kill switch with {:.0f} % power "
      "(calibration spread {:.1f} %, inflated x{:.1f})",
      p.planned_rounds, p.effect_pct, needed, kill_switch_pct, p.power * 100.0, p.spread_log_sd * 100.0, p.inflation);
  if (p.exceeds_budget())
    line += fmt::format("; the {} rounds the time budget holds (about {:.1f} s each) resolve a kill switch of {:.1f} % "
                        "at best",
                        p.budget_rounds, p.seconds_per_round, p.resolvable_kill_switch_pct);
  else if (p.resolvable_kill_switch_pct > 0)
    line += fmt::format("; capped by --rounds, they resolve a kill switch of {:.1f} % at best",
                        p.resolvable_kill_switch_pct);
  return line;
}

}  // namespace tpb
