#include "results/round_verdict_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <optional>

#include "common/error.hpp"
#include "results/attribute_fields.hpp"
#include "results/layout.hpp"
#include "results/stored_lists.hpp"

namespace tpb {
namespace {

double log_of(double pct) { return std::log1p(pct / 100.0); }
double as_stored(double pct) { return pct; }

constexpr auto kLocalizationFields = [](auto& f, auto& l) {
  f("localized_term", l.term);
  f("localized_measured_us", l.measured_us);
  f("localized_predicted_us", l.predicted_us);
  f("localized_departure_us", l.departure_us);
  f("localized_departure_pct", l.departure_pct);
};
// A judged form at k: its figures over the cells.
constexpr auto kFormFields = [](auto& f, auto& form) {
  f("mape_pct", form.mape_pct);
  f("worst_cell", form.worst_cell);
  f("error_ci_high_pct", form.error_bound_pct);
};

// /verdict/{form}/k{K} judged_on: how the form was priced in each round.
constexpr const char* kJudgedPaired = "paired";      // on the round's anchors
constexpr const char* kJudgedAbsolute = "absolute";  // its sealed prediction, at the launch's level

// {prefix}_pct, and where its interval formed {prefix}_low_pct and {prefix}_high_pct.
void write_interval(hid_t object, const std::string& prefix, const RoundInterval& i) {
  write_attribute(object, prefix + "_pct", i.estimate);
  if (i.formed) write_attributes(object, {{prefix + "_low_pct", i.low}, {prefix + "_high_pct", i.high}});
}

// Per item, the bounds of its `interval` as the lists {prefix}_low_pct and
// {prefix}_high_pct, each through `to_pct`; NaN, never 0, where it did not form.
template <typename Item>
void write_bounds(hid_t object, const std::string& prefix, const std::vector<Item>& items,
                  RoundInterval Item::*interval, double (*to_pct)(double)) {
  const auto bound = [&](double RoundInterval::*side) {
    return column(items, [&](const Item& item) {
      const RoundInterval& i = item.*interval;
      return i.formed ? to_pct(i.*side) : std::nan("");
    });
  };
  write_attributes(object, {{prefix + "_low_pct", bound(&RoundInterval::low)},
                            {prefix + "_high_pct", bound(&RoundInterval::high)}});
}

// What write_bounds stored, each bound through `from_pct`, into each item's
// `interval`: formed where both bounds are numbers.
template <typename Item>
void read_bounds(hid_t object, const std::string& prefix, std::vector<Item>& items, RoundInterval Item::*interval,
                 double (*from_pct)(double)) {
  const auto low = read_double_list_attribute(object, prefix + "_low_pct");
  const auto high = read_double_list_attribute(object, prefix + "_high_pct");
  for (std::size_t n = 0; n < items.size(); ++n) {
    RoundInterval& i = items[n].*interval;
    i.formed = !std::isnan(low.at(n)) && !std::isnan(high.at(n));
    if (i.formed) {
      i.low = from_pct(low[n]);
      i.high = from_pct(high[n]);
    }
  }
}

// Judged cells as lists: {prefix}verdict, {prefix}error_pct and the 1 − 2α
// interval's {prefix}hold_low_pct and {prefix}hold_high_pct.
void write_judgements(hid_t object, const std::string& prefix, const std::vector<CellJudgement>& cells) {
  const auto verdict = [](const CellJudgement& c) { return std::string(to_string(c.outcome)); };
  write_attributes(object, {{prefix + "verdict", column(cells, verdict)},
                            {prefix + "error_pct", column(cells, [](const CellJudgement& c) { return c.error_pct; })}});
  write_bounds(object, prefix + "hold", cells, &CellJudgement::hold, pct_of);
}

std::string verdict_reason(const FormKVerdict& v) {
  if (v.outcome == Outcome::not_applicable) return v.not_applicable_reason;
  return std::string(to_string(v.judged.reason));
}

void write_cell(hid_t group, const FormKVerdict& cell) {
  write_attributes(group, {{"verdict", std::string(to_string(cell.outcome))}, {"reason", verdict_reason(cell)},
                           {"judged_on", std::string(cell.absolute ? kJudgedAbsolute : kJudgedPaired)}});
  if (cell.outcome == Outcome::not_applicable) return;  // never judged: no figure
  const FormAtK& f = cell.judged;
  if (cell.absolute)
    write_attribute(group, "cell_level_pct",
                    column(f.cells, [](const CellJudgement& c) { return pct_of(c.level_log); }));
  if (!cell.outside_source.empty()) write_attribute(group, "outside_source", cell.outside_source);
  write_judgements(group, "cell_", f.cells);
  write_fields(group, f, kFormFields);
  write_attributes(group,
                   {{"cell_mean_ratio_pct", column(f.cells, [](const CellJudgement& c) { return c.mean_ratio_pct; })},
                    {"cell_sealed_error_pct", cell.sealed_error_pct}});
  write_bounds(group, "cell_falsify", f.cells, &CellJudgement::falsify, pct_of);
  if (cell.localized) write_fields(group, *cell.localized, kLocalizationFields);
}

// Every A/A cell (rank, batch, context, verdict, error, 1 − 2α interval), so
// that a reader renders the control without judging it again.
void write_aa_cells(hid_t root, const AaControl& aa) {
  const AaCell& worst = aa.cells[static_cast<std::size_t>(aa.worst_cell)];
  write_attributes(root, {{"control_aa_worst_cell", aa.worst_cell}, {"control_aa_worst_rank", worst.rank},
                          {"control_aa_worst_error_pct", worst.judgement.error_pct}});
  write_attributes(root, {{"control_aa_cell_rank", member_column(aa.cells, &AaCell::rank)},
                          {"control_aa_cell_batch", member_column(aa.cells, &AaCell::batch)},
                          {"control_aa_cell_context", member_column(aa.cells, &AaCell::context)}});
  write_judgements(root, "control_aa_cell_", column(aa.cells, [](const AaCell& c) { return c.judgement; }));
}

void write_straggler(hid_t root, int k, const StragglerTerm& term, const std::vector<std::string>& placements) {
  const std::string prefix = fmt::format("straggler_k{}", k);
  write_interval(root, prefix, term.straggler_pct);
  write_attribute(root, prefix + "_rank_slowdown_pct",
                  column(term.ranks, [](const RankSlowdown& r) { return r.slowdown_pct.estimate; }));
  write_bounds(root, prefix + "_rank_slowdown", term.ranks, &RankSlowdown::slowdown_pct, as_stored);
  if (term.systematic_rank >= 0) {
    write_attribute(root, prefix + "_systematic_rank", std::int64_t{term.systematic_rank});
    write_attribute(root, fmt::format("warning_systematic_imbalance_k{}", k),
                    systematic_imbalance_warning(k, term, placements));
  }
}

}  // namespace

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


namespace {

template <typename Enum, std::size_t N>
Enum parse_enum(const std::array<Enum, N>& values, const std::string& text, const std::string& where) {
  for (Enum value : values)
    if (to_string(value) == text) return value;
  throw_error("tpbench", 2, fmt::format("{}: '{}' is not a verdict this tool writes", where, text), __FILE__, __LINE__);
}

Outcome parse_outcome(const std::string& text, const std::string& where) {
  return parse_enum(std::array{Outcome::holds, Outcome::falsified, Outcome::inconclusive, Outcome::not_applicable},
                    text, where);
}

InconclusiveReason parse_reason(const std::string& text, const std::string& where) {
  return parse_enum(std::array{InconclusiveReason::none, InconclusiveReason::straddles_margin,
                               InconclusiveReason::too_few_rounds, InconclusiveReason::aa_not_held},
                    text, where);
}

// What write_judgements stored, in ln again; `where` names the object in an error.
std::vector<CellJudgement> read_judgements(hid_t object, const std::string& prefix, int rounds,
                                           const std::string& where) {
  const auto verdict = read_string_list_attribute(object, prefix + "verdict");
  const auto error = read_double_list_attribute(object, prefix + "error_pct");
  std::vector<CellJudgement> cells(verdict.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    CellJudgement& c = cells[i];
    c.outcome = parse_outcome(verdict[i], where);
    c.rounds = rounds;
    c.error_pct = error.at(i);
    c.median_log = log_of(c.error_pct);
    c.hold = RoundInterval{.rounds = rounds, .estimate = c.median_log};
  }
  read_bounds(object, prefix + "hold", cells, &CellJudgement::hold, log_of);
  return cells;
}

FormKVerdict read_form_at_k(const H5File& file, const std::string& form, int k, int rounds) {
  const std::string path = verdict_group_path(form, k);
  TPB_CHECK(file.exists(path), fmt::format("{} is missing: run 'mpi_bench verdict' first", path));
  H5Handle group = file.open_object(path);
  const hid_t g = group.id();
  FormKVerdict v;
  v.form = form;
  v.k = k;
  v.outcome = parse_outcome(read_string_attribute(g, "verdict"), path);
  v.absolute = read_string_attribute(g, "judged_on") == kJudgedAbsolute;
  if (has_attribute(g, "outside_source")) v.outside_source = read_string_attribute(g, "outside_source");
  if (v.outcome == Outcome::not_applicable) {
    v.not_applicable_reason = read_string_attribute(g, "reason");
    return v;
  }
  FormAtK& f = v.judged;
  f.outcome = v.outcome;
  f.reason = parse_reason(read_string_attribute(g, "reason"), path);
  f = read_fields(g, kFormFields, f);
  f.cells = read_judgements(g, "cell_", rounds, path);
  const auto mean_ratio = read_double_list_attribute(g, "cell_mean_ratio_pct");
  const auto level = v.absolute ? read_double_list_attribute(g, "cell_level_pct") : std::vector<double>();
  for (std::size_t i = 0; i < f.cells.size(); ++i) {
    CellJudgement& c = f.cells[i];
    c.mean_ratio_pct = mean_ratio.at(i);
    if (v.absolute) c.level_log = log_of(level.at(i));
    c.falsify = c.hold;  // the same rounds and median; its bounds are read below
  }
  read_bounds(g, "cell_falsify", f.cells, &CellJudgement::falsify, log_of);
  v.sealed_error_pct = read_double_list_attribute(g, "cell_sealed_error_pct");
  if (has_attribute(g, "localized_term")) v.localized = read_fields<Localization>(g, kLocalizationFields);
  return v;
}

AaControl read_aa(hid_t root, int rounds) {
  AaControl aa;
  const std::string state = read_string_attribute(root, "control_aa");
  aa.run = state != "NOT_RUN";
  aa.holds = state == "HOLDS";
  aa.falsified = state == "FALSIFIED";
  if (!aa.run) return aa;
  const auto rank = read_integer_list_attribute(root, "control_aa_cell_rank");
  const auto batch = read_integer_list_attribute(root, "control_aa_cell_batch");
  const auto context = read_integer_list_attribute(root, "control_aa_cell_context");
  const auto judgements = read_judgements(root, "control_aa_cell_", rounds, "/verdict control_aa");
  for (std::size_t i = 0; i < rank.size(); ++i)
    aa.cells.push_back(AaCell{.rank = static_cast<int>(rank[i]),
                              .batch = static_cast<int>(batch.at(i)),
                              .context = static_cast<int>(context.at(i)),
                              .judgement = judgements.at(i)});
  aa.worst_cell = static_cast<int>(read_integer_attribute(root, "control_aa_worst_cell"));
  return aa;
}

// What write_interval stored under `prefix`, in percent (not in ln): its
// estimate, and its bounds where formed.
RoundInterval read_pct_interval(hid_t root, const std::string& prefix) {
  RoundInterval i;
  i.estimate = read_double_attribute(root, prefix + "_pct");
  i.formed = has_attribute(root, prefix + "_low_pct") && has_attribute(root, prefix + "_high_pct");
  if (i.formed) {
    i.low = read_double_attribute(root, prefix + "_low_pct");
    i.high = read_double_attribute(root, prefix + "_high_pct");
  }
  return i;
}

std::optional<StragglerTerm> read_straggler(hid_t root, int k) {
  const std::string prefix = fmt::format("straggler_k{}", k);
  if (!has_attribute(root, prefix + "_pct")) return std::nullopt;
  StragglerTerm term;
  term.straggler_pct = read_pct_interval(root, prefix);
  const auto slowdown = read_double_list_attribute(root, prefix + "_rank_slowdown_pct");
  for (std::size_t r = 0; r < slowdown.size(); ++r)
    term.ranks.push_back(RankSlowdown{.rank = static_cast<int>(r), .slowdown_pct = {.estimate = slowdown[r]}});
  read_bounds(root, prefix + "_rank_slowdown", term.ranks, &RankSlowdown::slowdown_pct, as_stored);
  if (has_attribute(root, prefix + "_systematic_rank"))
    term.systematic_rank = static_cast<int>(read_integer_attribute(root, prefix + "_systematic_rank"));
  return term;
}

}  // namespace

RoundsEvaluation read_round_verdicts(const H5File& file, const Registration& r) {
  TPB_CHECK(file.exists(kVerdictGroup), fmt::format("{} is missing: run 'mpi_bench verdict' first", kVerdictGroup));
  H5Handle root_handle = file.open_object(kVerdictGroup);
  const hid_t root = root_handle.id();
  TPB_CHECK(has_attribute(root, "rule_version"),
            fmt::format("{} holds no rounds verdict: run 'mpi_bench verdict' first", kVerdictGroup));
  RoundsEvaluation e;
  e.rule = r.design.rule;
  e.rounds = static_cast<int>(read_integer_attribute(root, "rounds"));
  e.blocks = static_cast<int>(read_integer_attribute(root, "blocks"));
  e.family_cells = static_cast<int>(read_integer_attribute(root, "family_cells"));
  e.aa = read_aa(root, e.rounds);
  if (has_attribute(root, "control_same_node_spread_pct"))
    e.same_node_spread_pct = read_pct_interval(root, "control_same_node_spread");
  for (int k : r.grid.tp)
    if (auto term = read_straggler(root, k)) e.straggler[k] = std::move(*term);
  for (const ModelForm& form : judged_forms(r))
    for (int k : r.grid.tp) e.cells.push_back(read_form_at_k(file, std::string(form.name), k, e.rounds));
  return e;
}

void write_round_verdicts(H5File& file, const RoundsEvaluation& e) {
  for (const FormKVerdict& cell : e.cells) {
    H5Handle group = file.group(verdict_group_path(cell.form, cell.k));
    write_cell(group.id(), cell);
  }
  H5Handle root = file.group(kVerdictGroup);
  write_attributes(root.id(), {{"rule_version", e.rule.version},
                               {"anchor_convention", std::string(kAnchorConvention)}, {"rounds", e.rounds},
                               {"blocks", e.blocks}, {"block_rounds", e.rule.block_rounds},
                               {"alpha", e.rule.family_alpha}, {"kill_switch_pct", e.rule.kill_switch_pct},
                               {"family_cells", e.family_cells}});
  write_attribute(root.id(), "control_aa",
                  std::string(!e.aa.run         ? "NOT_RUN"
                              : e.aa.holds     ? "HOLDS"
                              : e.aa.falsified ? "FALSIFIED"
                                               : "NOT_HELD"));
  if (e.aa.run) write_aa_cells(root.id(), e.aa);
  if (e.same_node_spread_pct) write_interval(root.id(), "control_same_node_spread", *e.same_node_spread_pct);
  const std::vector<std::string> placements = read_rank_placements(file);
  for (const auto& [k, term] : e.straggler) write_straggler(root.id(), k, term, placements);
  file.flush();
}

}  // namespace tpb
