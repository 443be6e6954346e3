#include "results/verdict_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace tpb {
namespace {

std::string pct(double value, const char* format = "{:+.1f}") {
  return std::isnan(value) ? "—" : fmt::format(fmt::runtime(format), value);
}

std::string verdict_text(const FormKVerdict& v) {
  if (v.outcome == Outcome::inconclusive)
    return fmt::format("INCONCLUSIVE ({})", to_string(v.judged.reason));
  return std::string(to_string(v.outcome));
}

std::string localized_text(const FormKVerdict& v) {
  if (!v.localized) return "not measured";
  return fmt::format("{} {:+.1f} us ({:+.1f} % of t_step)", v.localized->term, v.localized->departure_us,
                     v.localized->departure_pct);
}

}  // namespace

std::string interval_pct_text(const RoundInterval& i) {
  if (!i.formed) return "not formed";
  return fmt::format("[{:+.1f}, {:+.1f}] %", std::expm1(i.low) * 100.0, std::expm1(i.high) * 100.0);
}

std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                         TableStyle style) {
  std::string out;
  if (style == TableStyle::markdown) {
    out = fmt::format("| {} |\n", fmt::join(header, " | "));
    for (std::size_t i = 0; i < header.size(); ++i) out += "|---";
    out += "|\n";
    for (const auto& row : rows) out += fmt::format("| {} |\n", fmt::join(row, " | "));
    return out;
  }
  std::vector<std::size_t> width(header.size());
  // Display width: count UTF-8 code points, not bytes ("—" is one column).
  const auto columns = [](const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  for (std::size_t i = 0; i < header.size(); ++i) {
    width[i] = columns(header[i]);
    for (const auto& row : rows) width[i] = std::max(width[i], columns(row[i]));
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i)
      s += cells[i] + (i + 1 < cells.size() ? std::string(width[i] - columns(cells[i]) + 2, ' ') : "");
    return s + "\n";
  };
  out = line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string verdict_table(const RoundsEvaluation& e, const Grid& grid, TableStyle style) {
  std::vector<const FormKVerdict*> sorted;
  for (const FormKVerdict& v : e.cells) sorted.push_back(&v);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->k < b->k; });
  std::vector<std::vector<std::string>> rows;
  for (const FormKVerdict* v : sorted) {
    std::string worst = "—", mape = "—";
    if (v->outcome != Outcome::not_applicable) {
      const auto w = static_cast<std::size_t>(v->judged.worst_cell);
      const CellJudgement& cell = v->judged.cells[w];
      const int b = grid.batch[w / grid.context.size()], c = grid.context[w % grid.context.size()];
      worst = fmt::format("b={} c={}: {} % {}", b, c, pct(cell.error_pct), interval_pct_text(cell.hold));
      mape = pct(v->judged.mape_pct, "{:.1f}") + " %";
    }
    const std::string label = !v->outside_source.empty() ? v->form + " (outside, absolute)"
                              : v->absolute               ? v->form + " (absolute)"
                                                          : v->form;
    rows.push_back({std::to_string(v->k), label, verdict_text(*v), worst, mape, localized_text(*v)});
  }
  return render_table({"k", "form", "verdict", "worst cell: error [1-2α interval]", "MAPE", "localized term"}, rows,
                      style);
}

std::vector<std::string> verdict_notes(const RoundsEvaluation& e) {
  std::vector<std::string> notes;
  notes.push_back(fmt::format(
      "This table speaks for one launch: its intervals resample the {} rounds of this launch ({} blocks of {}), not "
      "launches. A claim about the machine needs the launch as the unit of replication: run the study again as "
      "further launches and compare.",
      e.rounds, e.blocks, e.rule.block_rounds));
  const AaControl& aa = e.aa;
  if (!aa.run) {
    notes.push_back("A/A control: not run, so no form can HOLD.");
  } else {
    const AaCell& worst = aa.cells[static_cast<std::size_t>(aa.worst_cell)];
    int ranks = 0;
    for (const AaCell& cell : aa.cells) ranks = std::max(ranks, cell.rank + 1);
    notes.push_back(fmt::format("A/A control (TP-1 step against TP-1 --no-comm, on each of the {} rank(s)): {}; its "
                                "worst cell is rank {} b={} c={} at {} % {}.",
                                ranks,
                                aa.holds       ? "HOLDS"
                                : aa.falsified ? "FALSIFIED (biased beyond the margin), so no form may HOLD"
                                               : "does NOT hold, so no form may HOLD",
                                worst.rank, worst.batch,
                                worst.context, pct(worst.judgement.error_pct), interval_pct_text(worst.judgement.hold)));
  }
  // A form's applicability is the backend's, the same at every k: said once.
  std::vector<std::string> said;
  for (const FormKVerdict& v : e.cells) {
    if (v.outcome != Outcome::not_applicable || std::find(said.begin(), said.end(), v.form) != said.end()) continue;
    said.push_back(v.form);
    notes.push_back(fmt::format("`{}` is NOT_APPLICABLE: {}.", v.form, v.not_applicable_reason));
  }
  for (const FormKVerdict& v : e.cells)
    if (v.form == "no_speedup" && v.k > 1)
      notes.push_back(fmt::format("Sanity: `no_speedup` at k = {} is {} (a study that sees a speedup falsifies it).",
                                  v.k, to_string(v.outcome)));
  notes.push_back(fmt::format(
      "Judged on the median of d = ln(measured / prediction) over rounds, the typical step (the mean ratio, which "
      "TPOT follows, is in the cell table); margin ±K = ±{:g} % as δ = ln(1 + K); HOLDS on the 1 - 2α interval, "
      "FALSIFIED on the 1 - α/m interval, α = {:g}, m = {}.",
      e.rule.kill_switch_pct, e.rule.family_alpha, e.family_cells));
  return notes;
}

}  // namespace tpb
