#include "results/round_verdict_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "results/layout.hpp"

namespace tpb {
namespace {

// Per cell in grid order, `f` of its judgement as a percent error.
template <typename F>
std::vector<double> per_cell(const FormAtK& form, F f) {
  std::vector<double> out;
  for (const CellJudgement& cell : form.cells) out.push_back(f(cell));
  return out;
}

double pct_of(double log_value) { return std::expm1(log_value) * 100.0; }

void write_cell(hid_t group, const FormKVerdict& cell) {
  write_attribute(group, "verdict", std::string(to_string(cell.outcome)));
  write_attribute(group, "reason", verdict_reason(cell));
  if (cell.outcome == Outcome::not_applicable) return;  // never judged: no figure
  const FormAtK& f = cell.judged;
  write_attribute(group, "mape_pct", f.mape_pct);
  write_attribute(group, "worst_cell", std::int64_t{f.worst_cell});
  write_attribute(group, "error_ci_high_pct", f.error_bound_pct);
  write_attribute(group, "cell_error_pct", per_cell(f, [](const CellJudgement& c) { return c.error_pct; }));
  write_attribute(group, "cell_mean_ratio_pct", per_cell(f, [](const CellJudgement& c) { return c.mean_ratio_pct; }));
  write_attribute(group, "cell_verdict",
                  [&] {
                    std::vector<std::string> out;
                    for (const CellJudgement& c : f.cells) out.emplace_back(to_string(c.outcome));
                    return out;
                  }());
  // An interval not formed is NaN, never 0.
  const auto bound = [](const RoundInterval& i, double v) { return i.formed ? pct_of(v) : std::nan(""); };
  write_attribute(group, "cell_hold_low_pct", per_cell(f, [&](const CellJudgement& c) { return bound(c.hold, c.hold.low); }));
  write_attribute(group, "cell_hold_high_pct",
                  per_cell(f, [&](const CellJudgement& c) { return bound(c.hold, c.hold.high); }));
  write_attribute(group, "cell_falsify_low_pct",
                  per_cell(f, [&](const CellJudgement& c) { return bound(c.falsify, c.falsify.low); }));
  write_attribute(group, "cell_falsify_high_pct",
                  per_cell(f, [&](const CellJudgement& c) { return bound(c.falsify, c.falsify.high); }));
  write_attribute(group, "cell_sealed_error_pct", cell.sealed_error_pct);
  if (cell.localized) {
    const Localization& l = *cell.localized;
    write_attribute(group, "localized_term", l.term);
    write_attribute(group, "localized_measured_us", l.measured_us);
    write_attribute(group, "localized_predicted_us", l.predicted_us);
    write_attribute(group, "localized_departure_us", l.departure_us);
    write_attribute(group, "localized_departure_pct", l.departure_pct);
  }
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

std::string verdict_reason(const FormKVerdict& v) {
  if (v.outcome == Outcome::not_applicable) return v.not_applicable_reason;
  return std::string(to_string(v.judged.reason));
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
    write_cell(group.id(), cell);
  }
  H5Handle root = file.group(kVerdictGroup);
  write_attribute(root.id(), "rule_version", std::int64_t{e.rule.version});
  write_attribute(root.id(), "anchor_convention", std::string(kAnchorConvention));
  write_attribute(root.id(), "rounds", std::int64_t{e.rounds});
  write_attribute(root.id(), "blocks", std::int64_t{e.blocks});
  write_attribute(root.id(), "block_rounds", std::int64_t{e.rule.block_rounds});
  write_attribute(root.id(), "alpha", e.rule.family_alpha);
  write_attribute(root.id(), "kill_switch_pct", e.rule.kill_switch_pct);
  write_attribute(root.id(), "family_cells", std::int64_t{e.family_cells});
  write_attribute(root.id(), "control_aa",
                  std::string(!e.aa.run         ? "NOT_RUN"
                              : e.aa.holds     ? "HOLDS"
                              : e.aa.falsified ? "FALSIFIED"
                                               : "NOT_HELD"));
  if (e.aa.run) {
    const AaCell& worst = e.aa.cells[static_cast<std::size_t>(e.aa.worst_cell)];
    write_attribute(root.id(), "control_aa_worst_rank", std::int64_t{worst.rank});
    write_attribute(root.id(), "control_aa_worst_error_pct", worst.judgement.error_pct);
  }
  if (e.same_node_spread_pct) {
    write_attribute(root.id(), "control_same_node_spread_pct", e.same_node_spread_pct->estimate);
    if (e.same_node_spread_pct->formed)
      write_attribute(root.id(), "control_same_node_spread_high_pct", e.same_node_spread_pct->high);
  }
  const std::vector<std::string> placements = read_rank_placements(file);
  for (const auto& [k, term] : e.straggler) write_straggler(root.id(), k, term, placements);
  file.flush();
}

}  // namespace tpb
