#include "results/round_verdict_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "results/layout.hpp"

namespace tpb {

std::string verdict_reason(const CellVerdict& v) {
  if (v.outcome == Outcome::not_applicable) return v.not_applicable_reason;
  return std::string(to_string(v.reason));
}

void write_round_verdicts(H5File& file, const RoundsEvaluation& e) {
  for (const FormKVerdict& cell : e.cells) {
    H5Handle group = file.group(verdict_group_path(cell.form, cell.k));
    const CellVerdict& v = cell.verdict;
    if (has_attribute(group.id(), "verdict") && !has_attribute(group.id(), "point_verdict"))
      write_attribute(group.id(), "point_verdict", read_string_attribute(group.id(), "verdict"));
    write_attribute(group.id(), "verdict", std::string(to_string(v.outcome)));
    write_attribute(group.id(), "reason", verdict_reason(v));
    write_attribute(group.id(), "error_pct", v.error_pct);
    write_attribute(group.id(), "error_ci_low_pct", v.error_ci_low_pct);
    write_attribute(group.id(), "error_ci_high_pct", v.error_ci_high_pct);
    write_attribute(group.id(), "drift_pct", v.drift_pct);
    write_attribute(group.id(), "rounds", std::int64_t{v.rounds});
    write_attribute(group.id(), "rounds_needed", std::int64_t{v.rounds_needed});
    write_attribute(group.id(), "p_exceeds", v.p_exceeds);
    write_attribute(group.id(), "sealed_error_pct", v.sealed_error_pct);
    write_attribute(group.id(), "paired_outcome", std::string(to_string(v.paired_outcome)));
    write_attribute(group.id(), "sealed_outcome", std::string(to_string(v.sealed_outcome)));
  }
  const RoundsControls& c = e.controls;
  H5Handle root = file.group(kVerdictGroup);
  write_attribute(root.id(), "rounds", std::int64_t{e.rounds});
  write_attribute(root.id(), "judged_cells", std::int64_t{e.judged_cells});
  write_attribute(root.id(), "alpha", e.alpha);
  write_attribute(root.id(), "control_aa",
                  std::string(!c.aa_run ? "NOT_RUN" : c.aa_holds ? "HOLDS" : c.aa_formed ? "FAILED" : "NOT_FORMED"));
  write_attribute(root.id(), "control_same_node",
                  std::string(!c.same_node_run ? "NOT_RUN" : c.rank_imbalance ? "RANK_IMBALANCE" : "BALANCED"));
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
  file.flush();
}

}  // namespace tpb
