#include "predictor/decision_rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "predictor/statistics.hpp"

namespace tpb {

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::holds: return "HOLDS";
    case Outcome::falsified: return "FALSIFIED";
    case Outcome::inconclusive: return "INCONCLUSIVE";
    case Outcome::not_applicable: return "NOT_APPLICABLE";
  }
  return "?";
}

std::string_view to_string(InconclusiveReason reason) {
  switch (reason) {
    case InconclusiveReason::none: return "";
    case InconclusiveReason::straddles_margin: return "straddles_margin";
    case InconclusiveReason::too_few_rounds: return "too_few_rounds";
    case InconclusiveReason::aa_not_held: return "aa_not_held";
  }
  return "?";
}

double DecisionRule::margin_log() const { return std::log1p(kill_switch_pct / 100.0); }

void validate_decision_rule(const DecisionRule& rule) {
  if (rule.version != kDecisionRuleVersion)
    throw UsageError(fmt::format("decision rule version {} is not one this tool judges (only {})", rule.version,
                                 kDecisionRuleVersion));
  if (!(rule.kill_switch_pct > 0.0 && rule.kill_switch_pct <= 1000.0))
    throw UsageError(fmt::format("kill switch {} % is not a percentage in (0, 1000]", rule.kill_switch_pct));
  if (!(rule.family_alpha > 0.0 && rule.family_alpha < 0.5))
    throw UsageError(fmt::format("alpha {} is outside (0, 0.5)", rule.family_alpha));
  if (rule.block_rounds < 1 || rule.block_rounds % 2 == 0)
    throw UsageError(fmt::format("block of {} rounds: a block must hold a positive odd number of rounds",
                                 rule.block_rounds));
}

std::vector<double> block_medians(std::span<const double> values, int block_rounds) {
  TPB_CHECK(block_rounds >= 1, fmt::format("blocks of {} rounds", block_rounds));
  const auto block = static_cast<std::size_t>(block_rounds);
  std::vector<double> out;
  for (std::size_t start = 0; start + block <= values.size(); start += block)
    out.push_back(median(values.subspan(start, block)));
  return out;
}

CellJudgement judge_cell(std::span<const double> log_ratios, const DecisionRule& rule, int family_cells) {
  TPB_CHECK(!log_ratios.empty(), "a cell judged on zero rounds");
  TPB_CHECK(family_cells >= 1, fmt::format("a family of {} cells", family_cells));
  double ratio_sum = 0.0;
  for (double d : log_ratios) {
    TPB_CHECK(std::isfinite(d), fmt::format("log-ratio {} is not finite", d));
    ratio_sum += std::exp(d);
  }
  CellJudgement cell;
  cell.rounds = static_cast<int>(log_ratios.size());
  cell.median_log = median(log_ratios);
  cell.error_pct = std::expm1(cell.median_log) * 100.0;
  cell.mean_ratio_pct = (ratio_sum / static_cast<double>(log_ratios.size()) - 1.0) * 100.0;

  const std::vector<double> blocks = block_medians(log_ratios, rule.block_rounds);
  const double alpha = rule.family_alpha;
  if (!blocks.empty()) {
    cell.hold = median_order_statistic_interval(blocks, 2.0 * alpha);
    cell.falsify = median_order_statistic_interval(blocks, alpha / family_cells);
  }
  decide_on_intervals(cell, rule.margin_log());
  return cell;
}

CellJudgement judge_absolute_cell(std::span<const double> log_ratios, std::span<const double> round_levels,
                                  const DecisionRule& rule, int family_cells) {
  TPB_CHECK(log_ratios.size() == round_levels.size(),
            fmt::format("{} log-ratios against {} round levels", log_ratios.size(), round_levels.size()));
  std::vector<double> residual(log_ratios.size());
  double level_sum = 0.0;
  for (std::size_t r = 0; r < residual.size(); ++r) {
    TPB_CHECK(std::isfinite(round_levels[r]), fmt::format("round level {} is not finite", round_levels[r]));
    residual[r] = log_ratios[r] - round_levels[r];
    level_sum += round_levels[r];
  }
  CellJudgement cell = judge_cell(residual, rule, family_cells);
  cell.level_log = level_sum / static_cast<double>(residual.size());
  cell.median_log += cell.level_log;
  cell.error_pct = std::expm1(cell.median_log) * 100.0;
  double ratio_sum = 0.0;
  for (double d : log_ratios) ratio_sum += std::exp(d);
  cell.mean_ratio_pct = (ratio_sum / static_cast<double>(log_ratios.size()) - 1.0) * 100.0;
  for (RoundInterval* interval : {&cell.hold, &cell.falsify}) {
    interval->estimate += cell.level_log;
    interval->low += cell.level_log;
    interval->high += cell.level_log;
  }
  decide_on_intervals(cell, rule.margin_log());
  return cell;
}

void decide_on_intervals(CellJudgement& cell, double delta) {
  cell.reason = InconclusiveReason::none;
  if (cell.falsify.formed && (cell.falsify.low > delta || cell.falsify.high < -delta)) {
    cell.outcome = Outcome::falsified;
  } else if (cell.hold.formed && cell.hold.low > -delta && cell.hold.high < delta) {
    cell.outcome = Outcome::holds;
  } else {
    // Wholly beyond the margin at 1 − 2α but too few values for 1 − α/m:
    // more of them, not the margin, would settle it.
    const bool beyond = cell.hold.formed && (cell.hold.low > delta || cell.hold.high < -delta);
    cell.outcome = Outcome::inconclusive;
    cell.reason = !cell.hold.formed || (beyond && !cell.falsify.formed) ? InconclusiveReason::too_few_rounds
                                                                        : InconclusiveReason::straddles_margin;
  }
}

double cell_error_bound_pct(const CellJudgement& cell) {
  if (!cell.hold.formed) return std::numeric_limits<double>::quiet_NaN();
  return std::max(std::expm1(cell.hold.high), -std::expm1(cell.hold.low)) * 100.0;
}

FormAtK judge_form_at_k(std::vector<CellJudgement> cells, bool aa_holds) {
  TPB_CHECK(!cells.empty(), "a form judged on zero cells");
  FormAtK form;
  form.cells = std::move(cells);
  bool every_cell_holds = true;
  const CellJudgement* first_open = nullptr;
  for (std::size_t i = 0; i < form.cells.size(); ++i) {
    const CellJudgement& cell = form.cells[i];
    form.mape_pct += std::abs(cell.error_pct) / static_cast<double>(form.cells.size());
    if (std::abs(cell.median_log) > std::abs(form.cells[static_cast<std::size_t>(form.worst_cell)].median_log))
      form.worst_cell = static_cast<int>(i);
    // NaN (an interval not formed) propagates: no bound can be given then.
    const double bound = cell_error_bound_pct(cell);
    form.error_bound_pct = std::isnan(bound) || std::isnan(form.error_bound_pct)
                               ? std::numeric_limits<double>::quiet_NaN()
                               : std::max(form.error_bound_pct, bound);
    if (cell.outcome == Outcome::falsified) form.outcome = Outcome::falsified;
    if (cell.outcome != Outcome::holds) {
      every_cell_holds = false;
      if (!first_open && cell.outcome == Outcome::inconclusive) first_open = &cell;
    }
  }
  if (form.outcome == Outcome::falsified) return form;
  if (every_cell_holds && aa_holds) {
    form.outcome = Outcome::holds;
    return form;
  }
  form.outcome = Outcome::inconclusive;
  form.reason = every_cell_holds ? InconclusiveReason::aa_not_held : first_open->reason;
  return form;
}

}  // namespace tpb
