#include "results/round_verdict_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "results/layout.hpp"

namespace tpb {
namespace {

void write_cell(hid_t group, const FormKVerdict& cell, int rule_version) {
  const CellVerdict& v = cell.verdict;
  if (has_attribute(group, "verdict") && !has_attribute(group, "point_verdict"))
    write_attribute(group, "point_verdict", read_string_attribute(group, "verdict"));
  write_attribute(group, "verdict", std::string(to_string(v.outcome)));
  write_attribute(group, "reason", verdict_reason(v));
  write_attribute(group, "error_pct", v.error_pct);
  write_attribute(group, "error_ci_low_pct", v.error_ci_low_pct);
  write_attribute(group, "error_ci_high_pct", v.error_ci_high_pct);
  write_attribute(group, "drift_pct", v.drift_pct);
  write_attribute(group, "rounds", std::int64_t{v.rounds});
  write_attribute(group, "rounds_needed", std::int64_t{v.rounds_needed});
  write_attribute(group, "p_exceeds", v.p_exceeds);
  write_attribute(group, "sealed_error_pct", v.sealed_error_pct);
  write_attribute(group, "paired_outcome", std::string(to_string(v.paired_outcome)));
  write_attribute(group, "sealed_outcome", std::string(to_string(v.sealed_outcome)));
  // Version 2 has no signed error and no explanation; a cell never judged
  // (NOT_APPLICABLE) has neither either.
  if (rule_version >= 3 && v.outcome != Outcome::not_applicable) {
    write_attribute(group, "signed_error_pct", v.signed_error_pct);
    write_attribute(group, "signed_ci_low_pct", v.signed_ci_low_pct);
    write_attribute(group, "signed_ci_high_pct", v.signed_ci_high_pct);
    write_attribute(group, "cell_error_pct", v.cell_error_pct);
    write_attribute(group, "explained_by", v.explained_by);
  }
  if (cell.localized) {
    const Localization& l = *cell.localized;
    write_attribute(group, "localized_term", l.term);
    write_attribute(group, "localized_measured_us", l.measured_us);
    write_attribute(group, "localized_predicted_us", l.predicted_us);
    write_attribute(group, "localized_departure_us", l.departure_us);
    write_attribute(group, "localized_departure_pct", l.departure_pct);
  }
}

std::string same_node_state(const RoundsEvaluation& e) {
  const RoundsControls& c = e.controls;
  if (!c.same_node_run) return "NOT_RUN";
  // Under version 3 the spread gates nothing: the straggler term localizes.
  if (e.rule_version >= 3) return "MEASURED";
  return c.rank_imbalance ? "RANK_IMBALANCE" : "BALANCED";
}

void write_straggler(hid_t root, int k, const StragglerTerm& term, const std::vector<std::string>& placements) {
  const std::string prefix = fmt::format("straggler_k{}", k);
  const RoundInterval& s = term.straggler_pct;
  write_attribute(root, prefix + "_pct", s.estimate);
  if (s.formed) {
    write_attribute(root, prefix + "_low_pct", s.low);
    write_attribute(root, prefix + "_high_pct", s.high);
  }
  std::vector<double> slowdown;
  for (const RankSlowdown& rank : term.ranks) slowdown.push_back(rank.slowdown_pct.estimate);
  write_attribute(root, prefix + "_rank_slowdown_pct", slowdown);
  if (term.systematic_rank >= 0) {
    write_attribute(root, prefix + "_systematic_rank", std::int64_t{term.systematic_rank});
    write_attribute(root, fmt::format("warning_systematic_imbalance_k{}", k),
                    systematic_imbalance_warning(k, term, placements));
  }
}

}  // namespace

std::string verdict_reason(const CellVerdict& v) {
  if (v.outcome == Outcome::not_applicable) return v.not_applicable_reason;
  return std::string(to_string(v.reason));
}

std::vector<std::string> read_rank_placements(const H5File& file) {
  std::vector<std::string> out;
  if (!file.exists(kMetaGroup)) return out;
  H5Handle meta = file.open_object(kMetaGroup);
  if (!has_attribute(meta.id(), "rank_map")) return out;
  for (const std::string& row : read_string_list_attribute(meta.id(), "rank_map")) {
    const nlohmann::json placement = nlohmann::json::parse(row, nullptr, false);
    const auto field = [&](const char* name) {
      return placement.is_object() && placement.contains(name) && placement[name].is_string()
                 ? placement[name].get<std::string>()
                 : std::string("?");
    };
    out.push_back(fmt::format("host {}, device {}", field("node"), field("device")));
  }
  return out;
}

std::string systematic_imbalance_warning(int k, const StragglerTerm& term, const std::vector<std::string>& placements) {
  if (term.systematic_rank < 0) return "";
  const auto rank = static_cast<std::size_t>(term.systematic_rank);
  const RoundInterval& s = term.ranks.at(rank).slowdown_pct;
  return fmt::format("TP-{}: rank {} ({}) is slower than the others across rounds by {:.1f} % of t_step [{:.1f}, "
                     "{:.1f}], beyond half the kill switch",
                     k, rank, rank < placements.size() ? placements[rank] : std::string("host ?, device ?"),
                     s.estimate, s.low, s.high);
}

void write_round_verdicts(H5File& file, const RoundsEvaluation& e) {
  for (const FormKVerdict& cell : e.cells) {
    H5Handle group = file.group(verdict_group_path(cell.form, cell.k));
    write_cell(group.id(), cell, e.rule_version);
  }
  const RoundsControls& c = e.controls;
  H5Handle root = file.group(kVerdictGroup);
  write_attribute(root.id(), "rule_version", std::int64_t{e.rule_version});
  write_attribute(root.id(), "final_look", std::int64_t{e.final_look ? 1 : 0});
  write_attribute(root.id(), "rounds", std::int64_t{e.rounds});
  write_attribute(root.id(), "judged_cells", std::int64_t{e.judged_cells});
  write_attribute(root.id(), "alpha", e.alpha);
  write_attribute(root.id(), "control_aa",
                  std::string(!c.aa_run ? "NOT_RUN" : c.aa_holds ? "HOLDS" : c.aa_formed ? "FAILED" : "NOT_FORMED"));
  if (c.aa_run && c.aa_formed) write_attribute(root.id(), "control_aa_upper_pct", c.aa_upper_pct);
  write_attribute(root.id(), "control_same_node", same_node_state(e));
  if (c.same_node_run) {
    write_attribute(root.id(), "control_same_node_spread_pct", c.same_node_spread_pct.estimate);
    write_attribute(root.id(), "control_same_node_spread_high_pct", c.same_node_spread_pct.high);
  }
  for (const auto& [k, power] : c.power) {
    write_attribute(root.id(), fmt::format("control_power_k{}_over", k), std::string(to_string(power.over.outcome)));
    write_attribute(root.id(), fmt::format("control_power_k{}_under", k), std::string(to_string(power.under.outcome)));
  }
  for (const auto& [k, outcome] : c.no_speedup)
    write_attribute(root.id(), fmt::format("control_no_speedup_k{}", k), std::string(to_string(outcome)));
  std::vector<std::string> unpowered;
  for (int k : c.unpowered_k) unpowered.push_back(std::to_string(k));
  write_attribute(root.id(), "control_unpowered_k", unpowered.empty() ? std::string("none") : fmt::format("{}", fmt::join(unpowered, ",")));
  const std::vector<std::string> placements = read_rank_placements(file);
  for (const auto& [k, term] : e.straggler) write_straggler(root.id(), k, term, placements);
  file.flush();
}

}  // namespace tpb
