#include "predictor/round_evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "predictor/form_applicability.hpp"
#include "predictor/model_forms.hpp"
#include "predictor/round_localization.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
namespace {

template <typename Map, typename Key>
const typename Map::mapped_type& at(const Map& map, const Key& key, const char* what) {
  const auto found = map.find(key);
  if (found == map.end())
    throw_error("tpbench", 1, fmt::format("a round has no {} measurement for a registered cell", what), __FILE__,
                __LINE__);
  return found->second;
}

// Per cell of (form, k) in grid order, its rounds' d = ln(measured /
// prediction in that round), ln(measured / sealed prediction), and for an
// absolute form the rounds' levels ℓ_r.
struct CellSeries {
  std::vector<double> d, sealed, levels;
};

std::vector<CellSeries> form_series(const Registration& r, const ModelForm& form, int k,
                                    const std::vector<RoundObservation>& rounds) {
  std::vector<CellSeries> out;
  for (int b : r.grid.batch)
    for (int c : r.grid.context) {
      const DegreeCell cell{k, b, c};
      const double sealed_us = find_prediction(r.predictions, form.name, k, b, c).prediction.t_step_us;
      CellSeries series;
      for (const RoundObservation& round : rounds) {
        const double measured = at(round.step_us, cell, "TP-k step");
        const double round_us = round_prediction(r, form, cell, round).t_step_us;
        TPB_CHECK(measured > 0 && round_us > 0 && sealed_us > 0,
                  fmt::format("{} k={} b={} c={}: measured {} us against predictions {} and {} us", form.name, k, b,
                              c, measured, round_us, sealed_us));
        series.d.push_back(std::log(measured / round_us));
        series.sealed.push_back(std::log(measured / sealed_us));
        if (form.absolute) series.levels.push_back(round_level(r, cell, round));
      }
      out.push_back(std::move(series));
    }
  return out;
}

AaControl judge_aa(const Registration& r, const DecisionRule& rule, const std::vector<RoundObservation>& rounds) {
  std::vector<AaCell> cells;
  for (int b : r.grid.batch)
    for (int c : r.grid.context) {
      const std::size_t ranks = at(rounds.front().step1_rank_us, GridCell{b, c}, "TP-1 step").size();
      for (std::size_t rank = 0; rank < ranks; ++rank) {
        std::vector<double> d;
        for (const RoundObservation& round : rounds) {
          const auto& step = at(round.step1_rank_us, GridCell{b, c}, "TP-1 step");
          const auto& compute = at(round.compute1_rank_us, GridCell{b, c}, "TP-1 --no-comm");
          TPB_CHECK(step.size() == ranks && compute.size() >= ranks,
                    fmt::format("a round holds TP-1 of {} and {} ranks, the first {}", step.size(), compute.size(),
                                ranks));
          d.push_back(std::log(step[rank] / compute[rank]));
        }
        cells.push_back({static_cast<int>(rank), b, c, judge_cell(d, rule, 1)});
      }
    }
  return aa_control(std::move(cells));
}

std::optional<RoundInterval> same_node_spread(const Registration& r, const std::vector<RoundObservation>& rounds,
                                              double alpha) {
  std::optional<RoundInterval> widest;
  for (int b : r.grid.batch)
    for (int c : r.grid.context) {
      std::vector<std::vector<double>> ranks;
      for (const RoundObservation& round : rounds) {
        const auto found = round.step1_rank_us.find(GridCell{b, c});
        if (found != round.step1_rank_us.end() && found->second.size() >= 2) ranks.push_back(found->second);
      }
      if (ranks.size() != rounds.size()) continue;
      const RoundInterval spread = same_node_spread_interval(ranks, alpha);
      if (!widest || spread.estimate > widest->estimate) widest = spread;
    }
  return widest;
}

// Per round, the straggler evidence of degree k over the grid; none when a
// round lacks any cell's per-rank collective times (not measured).
std::optional<std::vector<StragglerRound>> straggler_rounds(const Registration& r, int k,
                                                            const std::vector<RoundObservation>& rounds) {
  std::vector<StragglerRound> out;
  for (const RoundObservation& observed : rounds) {
    StragglerRound round;
    for (int b : r.grid.batch)
      for (int c : r.grid.context) {
        const auto waits = observed.rank_collective_us.find(DegreeCell{k, b, c});
        if (waits == observed.rank_collective_us.end() || waits->second.size() < 2) return std::nullopt;
        round.step_us.push_back(at(observed.step_us, DegreeCell{k, b, c}, "TP-k step"));
        round.rank_collective_us.push_back(waits->second);
      }
    out.push_back(std::move(round));
  }
  return out;
}

}  // namespace

double group_max(const std::vector<double>& per_rank, int k) {
  TPB_CHECK(k >= 1 && per_rank.size() >= static_cast<std::size_t>(k),
            fmt::format("the slowest of {} ranks among {} measured", k, per_rank.size()));
  return *std::max_element(per_rank.begin(), per_rank.begin() + k);
}

FormInputs paired_inputs(const CellInputs& sealed, const RoundObservation& round) {
  FormInputs in = sealed.inputs;
  const int k = in.k;
  const GridCell grid_cell{sealed.batch, sealed.context};
  const DegreeCell cell{k, sealed.batch, sealed.context};
  in.t_compute1_us = group_max(at(round.compute1_rank_us, grid_cell, "TP-1 --no-comm anchor"), k);
  in.t_replay_us = k == 1 ? in.t_compute1_us : group_max(at(round.replay_rank_us, cell, "shard replay anchor"), k);
  in.t_host_us = group_max(at(round.host_rank_us, cell, "host time anchor"), k);
  return in;  // the collective fits stay sealed: the sweeps are not repeated per round
}

Prediction round_prediction(const Registration& r, const ModelForm& form, const DegreeCell& cell,
                            const RoundObservation& round) {
  const auto [k, b, c] = cell;
  if (form.absolute) return find_prediction(r.predictions, form.name, k, b, c).prediction;
  return form.predict(paired_inputs(find_cell_inputs(r, k, b, c), round));
}

double round_level(const Registration& r, const DegreeCell& cell, const RoundObservation& round) {
  const auto [k, b, c] = cell;
  const double sealed_us = find_cell_inputs(r, k, b, c).inputs.t_compute1_us;
  const double round_us = group_max(at(round.compute1_rank_us, GridCell{b, c}, "TP-1 --no-comm anchor"), k);
  TPB_CHECK(sealed_us > 0 && round_us > 0,
            fmt::format("k={} b={} c={}: t_compute(1) {} us sealed, {} us in a round", k, b, c, sealed_us, round_us));
  return std::log(round_us / sealed_us);
}

int form_family_cells(const Grid& grid) {
  return static_cast<int>(grid.tp.size() * grid.batch.size() * grid.context.size());
}

RoundsEvaluation evaluate_rounds(const Registration& r, const std::vector<RoundObservation>& rounds) {
  TPB_CHECK(!rounds.empty(), "evaluation of zero rounds");
  RoundsEvaluation out;
  out.rule = r.design.rule;
  out.rounds = static_cast<int>(rounds.size());
  out.blocks = out.rounds / out.rule.block_rounds;
  out.family_cells = form_family_cells(r.grid);
  const double report_alpha = 2.0 * out.rule.family_alpha;  // the reported intervals: 1 − 2α, as HOLDS uses

  out.aa = judge_aa(r, out.rule, rounds);
  out.same_node_spread_pct = same_node_spread(r, rounds, report_alpha);
  for (int k : r.grid.tp)
    if (k > 1)
      if (const auto rounds_of_k = straggler_rounds(r, k, rounds))
        out.straggler[k] = straggler_term(*rounds_of_k, report_alpha, out.rule.kill_switch_pct);

  const BackendKind backend = parse_backend_kind("registered backend", r.workload.backend);
  for (const ModelForm& form : judged_forms(r))
    for (int k : r.grid.tp) {
      FormKVerdict verdict;
      verdict.form = form.name;
      verdict.k = k;
      verdict.absolute = form.absolute;
      const OutsideForm* outside = find_outside_form(r, form.name);
      if (outside) verdict.outside_source = fmt::format("{} (sha256 {})", outside->source_name, outside->sha256);
      verdict.not_applicable_reason = not_applicable_reason(form.name, backend);
      if (!verdict.not_applicable_reason.empty()) {
        verdict.outcome = Outcome::not_applicable;
        out.cells.push_back(std::move(verdict));
        continue;
      }
      std::vector<CellJudgement> cells;
      for (const CellSeries& series : form_series(r, form, k, rounds)) {
        cells.push_back(form.absolute ? judge_absolute_cell(series.d, series.levels, out.rule, out.family_cells)
                                      : judge_cell(series.d, out.rule, out.family_cells));
        verdict.sealed_error_pct.push_back(std::expm1(median(series.sealed)) * 100.0);
      }
      verdict.judged = judge_form_at_k(std::move(cells), out.aa.holds);
      verdict.outcome = verdict.judged.outcome;
      // An outside form without term columns predicts no term to localize.
      if (!outside || outside->has_terms) verdict.localized = localize_rounds(r, form, k, rounds);
      out.cells.push_back(std::move(verdict));
    }
  return out;
}

}  // namespace tpb
