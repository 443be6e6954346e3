#include "predictor/round_evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "common/error.hpp"
#include "predictor/form_applicability.hpp"
#include "predictor/model_forms.hpp"
#include "predictor/paired_errors.hpp"
#include "predictor/round_localization.hpp"

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

// Per round, the straggler evidence of degree k over the grid; none when a
// round lacks any cell's per-rank collective times (not measured).
std::optional<std::vector<StragglerRound>> straggler_rounds(const Registration& r, int k,
                                                            const std::vector<RoundObservation>& rounds) {
  std::vector<StragglerRound> out;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    StragglerRound round;
    for (int b : r.grid.batch)
      for (int c : r.grid.context) {
        const auto waits = rounds[i].rank_collective_us.find(DegreeCell{k, b, c});
        if (waits == rounds[i].rank_collective_us.end() || waits->second.size() < 2) return std::nullopt;
        round.step_us.push_back(at(rounds[i].step_us, DegreeCell{k, b, c}, "TP-k step", static_cast<int>(i)));
        round.rank_collective_us.push_back(waits->second);
      }
    out.push_back(std::move(round));
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

bool counted_in_family(int rule_version, std::string_view form, int k) {
  return rule_version == 2 || k != 1 || (form != "replay" && form != "no_speedup");
}

int family_cell_count(int rule_version, BackendKind backend, const std::vector<int>& tp,
                      const std::vector<ModelForm>& forms) {
  int cells = 0;
  for (const ModelForm& form : forms)
    for (int k : tp)
      cells += not_applicable_reason(form.name, backend).empty() && counted_in_family(rule_version, form.name, k);
  return cells;
}

RoundsEvaluation evaluate_rounds(const Registration& r, const RoundsDesign& design,
                                 const std::vector<RoundObservation>& rounds, bool final_look) {
  TPB_CHECK(!rounds.empty(), "evaluation of zero rounds");
  const DecisionRule& rule = design.rule;
  RoundsEvaluation out;
  out.rule_version = rule.version;
  out.rounds = static_cast<int>(rounds.size());
  out.final_look = final_look;

  // Evidence of every (form, k), and the count of the α family.
  struct Pending {
    const ModelForm* form;
    int k;
    CellEvidence evidence;
  };
  std::vector<Pending> pending;
  const BackendKind backend = parse_backend_kind("registered backend", r.workload.backend);
  const std::vector<ModelForm> forms = registered_forms(r);
  for (const ModelForm& form : forms)
    for (int k : r.grid.tp) {
      Pending p{&form, k, {}};
      p.evidence.not_applicable_reason = not_applicable_reason(form.name, backend);
      p.evidence.applicable = p.evidence.not_applicable_reason.empty();
      if (p.evidence.applicable) {
        const auto times = form_rounds(r, form, k, rounds);
        if (rule.version == 2)
          p.evidence.errors = paired_round_errors(times);
        else
          p.evidence.log_ratios = paired_log_ratios(times);
      }
      pending.push_back(std::move(p));
    }
  out.judged_cells = family_cell_count(rule.version, backend, r.grid.tp, forms);
  TPB_CHECK(out.judged_cells > 0, "no model form is applicable on this backend");
  out.alpha = decision_alpha(rule, out.judged_cells, out.rounds, final_look);

  // Controls first. Positive: the A/A cells at k = 1 (version 3: ideal alone,
  // replay being the same prediction there).
  RoundsControls& controls = out.controls;
  std::vector<CellEvidence> aa;
  for (const Pending& p : pending)
    if (p.k == 1 && p.evidence.applicable &&
        (p.form->name == "ideal" || (rule.version == 2 && p.form->name == "replay")))
      aa.push_back(p.evidence);
  controls.aa_run = !aa.empty();
  if (controls.aa_run) {
    const AaControl control = aa_control(aa, rule, out.alpha);
    controls.aa_holds = control.holds;
    controls.aa_formed = control.formed;
    controls.aa_upper_pct = control.upper_pct;
  }

  // Negative: no_speedup at k > 1, and the power check at every k.
  for (const Pending& p : pending)
    if (p.form->name == "no_speedup" && p.evidence.applicable)
      controls.no_speedup[p.k] = judge_cell(p.evidence, CellGates{}, rule, out.alpha).paired_outcome;
  for (int k : r.grid.tp) {
    bool powered = false;
    if (rounds.size() >= 2) {
      const PowerCheck power = power_check(measured_rounds(r, k, rounds), rule, out.alpha);
      controls.power[k] = power;
      powered = k_has_power(k, power, controls.no_speedup.count(k) ? controls.no_speedup[k] : Outcome::inconclusive);
    }
    if (!powered) controls.unpowered_k.push_back(k);
  }

  // Same-node: the widest spread of TP-1 across the ranks over the grid
  // cells. It gates only under version 2; version 3 reports it and localizes
  // with the straggler term below.
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
      controls.rank_imbalance =
          rule.version == 2 && (controls.rank_imbalance || rank_imbalance(spread, rule.kill_switch_pct));
    }

  for (int k : r.grid.tp)
    if (k > 1)
      if (const auto rounds_of_k = straggler_rounds(r, k, rounds))
        out.straggler[k] = straggler_term(*rounds_of_k, out.alpha, rule.kill_switch_pct);

  const StudyControls gates_source{controls.aa_holds, controls.aa_upper_pct, controls.rank_imbalance,
                                   controls.unpowered_k};
  for (const Pending& p : pending) {
    CellVerdict verdict = judge_cell(p.evidence, gates_for(p.k, gates_source), rule, out.alpha);
    const auto straggler = out.straggler.find(p.k);
    if (verdict.outcome == Outcome::falsified && straggler != out.straggler.end() && verdict.signed_error_pct > 0)
      verdict.explained_by = straggler_explanation(straggler->second, verdict.error_ci_low_pct);
    out.cells.push_back({std::string(p.form->name), p.k, std::move(verdict),
                         p.evidence.applicable ? localize_rounds(r, *p.form, p.k, rounds) : std::nullopt});
  }
  return out;
}

}  // namespace tpb
