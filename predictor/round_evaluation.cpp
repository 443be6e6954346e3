#include "predictor/round_evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"
#include "predictor/form_applicability.hpp"
#include "predictor/model_forms.hpp"
#include "predictor/paired_errors.hpp"

namespace tpb {
namespace {

template <typename Map, typename Key>
const typename Map::mapped_type& at(const Map& map, const Key& key, const char* what, int round) {
  const auto found = map.find(key);
  if (found == map.end())
    throw_error("tpbench", 1, fmt::format("round {} has no {} measurement for a registered cell", round, what),
                __FILE__, __LINE__);
  return found->second;
}

// Per round, the grid cells of (form, k): measured, paired and sealed.
std::vector<std::vector<RoundCellTimes>> form_rounds(const Registration& r, const ModelForm& form, int k,
                                                     const std::vector<RoundObservation>& rounds) {
  std::vector<std::vector<RoundCellTimes>> out;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    const RoundObservation& round = rounds[i];
    std::vector<RoundCellTimes> cells;
    for (int b : r.grid.batch)
      for (int c : r.grid.context) {
        const CellInputs& sealed = find_cell_inputs(r, k, b, c);
        cells.push_back({at(round.step_us, DegreeCell{k, b, c}, "TP-k step", static_cast<int>(i)),
                         form.predict(paired_inputs(sealed, round)).t_step_us,
                         find_prediction(r, form.name, k, b, c).prediction.t_step_us});
      }
    out.push_back(std::move(cells));
  }
  return out;
}

// rounds × cells of the measured TP-k step, for the power check.
std::vector<std::vector<double>> measured_rounds(const Registration& r, int k,
                                                 const std::vector<RoundObservation>& rounds) {
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    std::vector<double> cells;
    for (int b : r.grid.batch)
      for (int c : r.grid.context)
        cells.push_back(at(rounds[i].step_us, DegreeCell{k, b, c}, "TP-k step", static_cast<int>(i)));
    out.push_back(std::move(cells));
  }
  return out;
}

}  // namespace

FormInputs paired_inputs(const CellInputs& sealed, const RoundObservation& round) {
  FormInputs in = sealed.inputs;
  const DegreeCell cell{in.k, sealed.batch, sealed.context};
  in.t_compute1_us = at(round.compute1_us, GridCell{sealed.batch, sealed.context}, "TP-1 --no-comm anchor", -1);
  in.t_replay_us = at(round.replay_us, cell, "shard replay anchor", -1);
  in.t_host_us = at(round.host_us, cell, "host time anchor", -1);
  return in;  // the collective fits stay sealed: the sweeps are not repeated per round
}

RoundsEvaluation evaluate_rounds(const Registration& r, const RoundsDesign& design,
                                 const std::vector<RoundObservation>& rounds) {
  TPB_CHECK(!rounds.empty(), "evaluation of zero rounds");
  const DecisionRule& rule = design.rule;
  RoundsEvaluation out;
  out.rounds = static_cast<int>(rounds.size());

  // Evidence of every (form, k), and the Bonferroni count of judged cells.
  struct Pending {
    const ModelForm* form;
    int k;
    CellEvidence evidence;
  };
  std::vector<Pending> pending;
  const BackendKind backend = parse_backend_kind("registered backend", r.workload.backend);
  for (const ModelForm& form : model_forms())
    for (int k : r.grid.tp) {
      Pending p{&form, k, {}};
      p.evidence.not_applicable_reason = not_applicable_reason(form.name, backend);
      p.evidence.applicable = p.evidence.not_applicable_reason.empty();
      if (p.evidence.applicable) {
        p.evidence.errors = paired_round_errors(form_rounds(r, form, k, rounds));
        ++out.judged_cells;
      }
      pending.push_back(std::move(p));
    }
  TPB_CHECK(out.judged_cells > 0, "no model form is applicable on this backend");
  out.alpha = decision_alpha(rule, out.judged_cells);

  // Controls first. Positive: the A/A cells at k = 1.
  RoundsControls& controls = out.controls;
  std::vector<std::vector<double>> aa;
  for (const Pending& p : pending)
    if (p.k == 1 && (p.form->name == "ideal" || p.form->name == "replay") && p.evidence.applicable)
      aa.push_back(p.evidence.errors.paired_pct);
  controls.aa_run = !aa.empty();
  if (controls.aa_run) {
    controls.aa_holds = aa_control_holds(aa, rule, out.alpha);
    controls.aa_formed = aa_control_formed(aa, out.alpha);
  }

  // Negative: no_speedup at k > 1, and the power check at every k.
  for (const Pending& p : pending)
    if (p.form->name == "no_speedup" && p.evidence.applicable)
      controls.no_speedup[p.k] =
          decide_on_interval(median_order_statistic_interval(p.evidence.errors.paired_pct, out.alpha),
                             rule.kill_switch_pct)
              .outcome;
  for (int k : r.grid.tp) {
    bool powered = false;
    if (rounds.size() >= 2) {
      const PowerCheck power = power_check(measured_rounds(r, k, rounds), rule, out.alpha);
      controls.power[k] = power;
      powered = k_has_power(k, power, controls.no_speedup.count(k) ? controls.no_speedup[k] : Outcome::inconclusive);
    }
    if (!powered) controls.unpowered_k.push_back(k);
  }

  // Same-node: the widest spread of TP-1 across the ranks over the grid cells.
  for (int b : r.grid.batch)
    for (int c : r.grid.context) {
      std::vector<std::vector<double>> ranks;
      for (const RoundObservation& round : rounds) {
        const auto found = round.same_node_rank_us.find(GridCell{b, c});
        if (found != round.same_node_rank_us.end() && found->second.size() >= 2) ranks.push_back(found->second);
      }
      if (ranks.size() != rounds.size()) continue;
      const RoundInterval spread = same_node_spread_interval(ranks, out.alpha);
      if (!controls.same_node_run || !spread.formed || spread.high > controls.same_node_spread_pct.high)
        controls.same_node_spread_pct = spread;
      controls.same_node_run = true;
      controls.rank_imbalance = controls.rank_imbalance || rank_imbalance(spread, rule.kill_switch_pct);
    }

  const StudyControls gates_source{controls.aa_holds, controls.rank_imbalance, controls.unpowered_k};
  for (const Pending& p : pending)
    out.cells.push_back({std::string(p.form->name), p.k,
                         judge_cell(p.evidence, gates_for(p.k, gates_source), rule, out.alpha)});
  return out;
}

}  // namespace tpb
