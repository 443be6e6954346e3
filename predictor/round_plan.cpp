#include "predictor/round_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/error.hpp"
#include "predictor/json_field.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
namespace {

// The SD of a median of `n` normal values over their own SD: √(π / 2n) for
// large n, 1 for a single value.
double median_sd_factor(int n) { return n == 1 ? 1.0 : std::sqrt(std::numbers::pi / (2.0 * n)); }

// The plan's keys in the registration (json_field.hpp).
constexpr auto kRoundPlanMembers = [](auto&& visit, auto& p) {
  visit("rounds", p.rounds);
  visit("blocks", p.blocks);
  visit("spread_log_sd", p.spread_log_sd);
  visit("formed", p.formed);
  visit("holds_within_pct", p.holds_within_pct);
  visit("falsified_beyond_pct", p.falsified_beyond_pct);
  visit("seconds_per_round", p.seconds_per_round);
  visit("budget_rounds", p.budget_rounds);
};

}  // namespace

RoundPlan plan_rounds(const RoundPlanInputs& in) {
  TPB_CHECK(!in.cell_log_sd.empty() && in.rounds >= 1 && in.family_cells >= 1,
            "round plan without cells, rounds or a family");
  RoundPlan plan;
  plan.rounds = in.rounds;
  plan.blocks = in.rounds / in.rule.block_rounds;
  for (double sd : in.cell_log_sd) {
    TPB_CHECK(sd > 0.0 && std::isfinite(sd), fmt::format("calibration spread {} is not positive", sd));
    plan.spread_log_sd = std::max(plan.spread_log_sd, sd);
  }
  const double alpha = in.rule.family_alpha;
  const double hold_alpha = 2.0 * alpha, falsify_alpha = alpha / in.family_cells;
  plan.formed = plan.blocks >= min_rounds_for_median_interval(hold_alpha) &&
                plan.blocks >= min_rounds_for_median_interval(falsify_alpha);
  if (plan.formed) {
    // The sign test's interval on `blocks` block medians, as the normal
    // approximation of the median of the block medians.
    const double se = median_sd_factor(plan.blocks) * median_sd_factor(in.rule.block_rounds) * plan.spread_log_sd;
    const double delta = in.rule.margin_log();
    plan.holds_within_pct =
        std::max(0.0, std::expm1(delta - normal_quantile(1.0 - hold_alpha / 2.0) * se) * 100.0);
    plan.falsified_beyond_pct = std::expm1(delta + normal_quantile(1.0 - falsify_alpha / 2.0) * se) * 100.0;
  }
  plan.seconds_per_round = in.seconds_per_round;
  if (in.time_budget_s > 0 && in.seconds_per_round > 0)
    plan.budget_rounds = static_cast<int>(std::floor(in.time_budget_s / in.seconds_per_round));
  return plan;
}

nlohmann::ordered_json round_plan_json(const RoundPlan& p) { return members_json(p, kRoundPlanMembers); }

RoundPlan parse_round_plan(const nlohmann::ordered_json& s) {
  RoundPlan p;
  read_members(s, "registration: round_plan", p, kRoundPlanMembers);
  return p;
}

std::string round_plan_line(const RoundPlan& p) {
  std::string line = fmt::format("{} rounds ({} blocks)", p.rounds, p.blocks);
  if (!p.formed)
    line += ": too few blocks for the rule's intervals; every cell will be INCONCLUSIVE (too_few_rounds)";
  else
    line += fmt::format(
        " at the calibration's spread ({:.1f} % per round) can expect to HOLD a cell whose true error lies within "
        "±{:.1f} % and to FALSIFY one beyond ±{:.1f} %",
        std::expm1(p.spread_log_sd) * 100.0, p.holds_within_pct, p.falsified_beyond_pct);
  if (p.exceeds_budget())
    line += fmt::format("; the time budget holds about {} rounds ({:.2f} s each) and will end the study there, "
                        "with fewer blocks",
                        p.budget_rounds, p.seconds_per_round);
  return line;
}

}  // namespace tpb
