#include "results/campaign_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "common/error.hpp"
#include "results/h5_file.hpp"
#include "results/report.hpp"
#include "results/stored_lists.hpp"
#include "results/verdict_table.hpp"

namespace tpb {
namespace {

constexpr const char* kCampaignGroup = "/campaign";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double bound_pct(const RoundInterval& i, double v) { return i.formed ? pct_of(v) : kNaN; }

std::string verdict_path(const std::string& form, int k) {
  return fmt::format("{}/verdict/{}/k{}", kCampaignGroup, form, k);
}

std::string reason_of(const PooledFormK& p) {
  if (p.outcome == Outcome::not_applicable) return p.not_applicable_reason;
  return std::string(to_string(p.judged.reason));
}

// The pooled verdict as printed: INCONCLUSIVE with its reason.
std::string verdict_text(const PooledFormK& p) {
  return p.outcome == Outcome::inconclusive ? fmt::format("INCONCLUSIVE ({})", reason_of(p))
                                            : std::string(to_string(p.outcome));
}

// Per cell of a form at k: (batch, context) in grid order (batch-major).
std::vector<std::pair<int, int>> grid_cells(const Grid& grid) {
  std::vector<std::pair<int, int>> out;
  for (int b : grid.batch)
    for (int c : grid.context) out.emplace_back(b, c);
  return out;
}

void write_cells(H5File& file, const std::string& path, const std::vector<PooledCell>& cells, const CampaignVerdict& v,
                 int family_cells) {
  const auto n = static_cast<std::uint64_t>(cells.size());
  const auto write = [&](const char* name, const std::vector<double>& values) {
    file.write_dataset(path + "/" + name, values, {n});
  };
  file.write_strings(path + "/cell_verdict",
                     column(cells, [](const PooledCell& c) { return std::string(to_string(c.judged.outcome)); }));
  write("cell_error_pct", column(cells, [](const PooledCell& c) { return c.judged.error_pct; }));
  write("cell_hold_low_pct", column(cells, [](const PooledCell& c) { return bound_pct(c.judged.hold, c.judged.hold.low); }));
  write("cell_hold_high_pct", column(cells, [](const PooledCell& c) { return bound_pct(c.judged.hold, c.judged.hold.high); }));
  write("cell_falsify_low_pct",
        column(cells, [](const PooledCell& c) { return bound_pct(c.judged.falsify, c.judged.falsify.low); }));
  write("cell_falsify_high_pct",
        column(cells, [](const PooledCell& c) { return bound_pct(c.judged.falsify, c.judged.falsify.high); }));
  write("cell_between_sd_pct", column(cells, [](const PooledCell& c) { return c.between_sd_log * 100.0; }));
  const int launches = static_cast<int>(v.counted.size());
  write("cell_smallest_falsifiable_pct", column(cells, [&](const PooledCell& c) {
          return launches >= 2 ? smallest_falsifiable_pct(launches, c.between_sd_log, v.rule, family_cells) : kNaN;
        }));
  write("cell_largest_holdable_pct", column(cells, [&](const PooledCell& c) {
          return launches >= 2 ? largest_holdable_pct(launches, c.between_sd_log, v.rule) : kNaN;
        }));
  std::vector<std::int64_t> power;
  std::vector<double> launch_pct;
  for (const PooledCell& c : cells) {
    power.push_back(launches >= 2 ? launches_for_hold_power(c.between_sd_log, v.rule) : -1);
    for (double d : c.launch_median_log) launch_pct.push_back(pct_of(d));
  }
  file.write_dataset(path + "/cell_launches_for_power", power, {n});
  file.write_dataset(path + "/launch_error_pct", launch_pct, {n, static_cast<std::uint64_t>(launches)});
}

std::string fmt_pct(double v) { return std::isnan(v) ? std::string("—") : fmt::format("{:+.1f} %", v); }
std::string fmt_interval(const RoundInterval& i) {
  return i.formed ? fmt::format("[{:+.1f}, {:+.1f}]", pct_of(i.low), pct_of(i.high)) : std::string("not formed");
}

const PooledCell& worst_cell(const PooledFormK& p) { return p.cells[static_cast<std::size_t>(p.judged.worst_cell)]; }

// The worst cell of a pooled verdict: "b=B c=C", then its mean error and 1 − 2α interval.
std::vector<std::string> worst_cell_text(const PooledFormK& p, const std::vector<std::pair<int, int>>& cells_bc) {
  const auto [batch, context] = cells_bc[static_cast<std::size_t>(p.judged.worst_cell)];
  const PooledCell& c = worst_cell(p);
  return {fmt::format("b={} c={}", batch, context),
          fmt::format("{} {}", fmt_pct(c.judged.error_pct), fmt_interval(c.judged.hold))};
}

// The report's Markdown.
std::string campaign_report_markdown(const CampaignContext& cx, const CampaignVerdict& v) {
  const auto cells_bc = grid_cells(cx.grid);
  const int launches = static_cast<int>(v.counted.size());
  std::string md = fmt::format("# tpbench campaign: {}\n\n", cx.design.model);
  if (v.incomplete())
    md += fmt::format("> **INCOMPLETE**: launches {} of the sealed {} are missing; this verdict pools {} launches.\n\n",
                      fmt::join(v.missing, ", "), v.launches_sealed, launches);
  std::vector<std::vector<std::string>> rows;
  for (const PooledFormK& p : v.cells) {
    std::vector<std::string> row = {fmt::format("{}", p.k), fmt::format("`{}`", p.form)};
    if (p.outcome == Outcome::not_applicable) {
      row.insert(row.end(), {"NOT_APPLICABLE", "—", "—", "—", "—"});
    } else {
      row.push_back(verdict_text(p));
      for (std::string& column : worst_cell_text(p, cells_bc)) row.push_back(std::move(column));
      row.push_back(fmt::format("{:.1f} %", worst_cell(p).between_sd_log * 100.0));
      row.push_back(fmt::format("{:.1f} %", p.judged.mape_pct));
    }
    rows.push_back(std::move(row));
  }
  md += render_table({"k", "form", "pooled verdict", "worst cell", "mean error [1 − 2α]", "between-launch SD", "MAPE"},
                     rows, TableStyle::markdown);
  md += fmt::format(
      "\nThis table speaks for the campaign: launches {} of L = {} sealed (campaign.json, sha256 `{}`). The estimand "
      "per cell is the mean over launches of each launch's median of d = ln(measured / paired prediction), the "
      "typical step of a typical launch. Its intervals are Student's t on L − 1 = {} degrees of freedom: HOLDS when "
      "the 1 − 2α interval lies inside ±δ, FALSIFIED when the 1 − α/m interval lies outside it (α = {}, m = {}, "
      "K = {} %, δ = ln(1 + K)). The A/A, pooled the same way per rank cell, gates HOLDS: {}.\n",
      fmt::join(v.counted, ", "), v.launches_sealed, cx.campaign_sha256.substr(0, 16), launches - 1,
      v.rule.family_alpha, v.family_cells, v.rule.kill_switch_pct,
      v.aa_holds ? "HOLDS" : v.aa_falsified ? "FALSIFIED" : "does not hold");
  // The t interval's one blind spot (docs/STATISTICS.md, Campaigns): a launch
  // effect on two levels in d is missed when every launch lands on one of them.
  md += fmt::format(
      "\nThe t interval takes the launch effect as roughly normal. A launch effect on two levels of d itself (not "
      "of the machine's speed, which the same-round pairing cancels) goes unseen when all L launches land on the "
      "same level: on a given one with probability 2^−L = {:.1f} % at L = {} for even odds; L ≥ {} keeps that "
      "under α/m.\n",
      std::ldexp(100.0, -launches), launches,
      static_cast<int>(std::ceil(std::log2(v.family_cells / v.rule.family_alpha))));
  for (const std::string& note : cx.notes) md += fmt::format("\n- {}", note);
  if (!cx.notes.empty()) md += "\n";

  md += "\n## Launches per cell\n\nEach launch's median error per cell (%), the between-launch SD of d, and what "
        "this campaign's L and spread can decide: the smallest |error| it could FALSIFY, the largest it could HOLD, "
        "and the L that spread needs to HOLD at a true error of 0 with 80 % power.\n\n";
  std::vector<std::string> header = {"form", "k", "cell"};
  for (int i : v.counted) header.push_back(fmt::format("launch {}", i));
  header.insert(header.end(), {"SD", "smallest FALSIFIED", "largest HOLDS", "L for 80 %"});
  std::vector<std::vector<std::string>> launch_rows;
  const bool formed = launches >= 2;
  for (const PooledFormK& p : v.cells) {
    if (p.outcome == Outcome::not_applicable) continue;
    for (std::size_t i = 0; i < p.cells.size(); ++i) {
      const PooledCell& c = p.cells[i];
      std::vector<std::string> row = {fmt::format("`{}`", p.form), fmt::format("{}", p.k),
                                      fmt::format("b={} c={}", cells_bc[i].first, cells_bc[i].second)};
      for (double d : c.launch_median_log) row.push_back(fmt::format("{:+.1f}", pct_of(d)));
      row.push_back(fmt::format("{:.1f} %", c.between_sd_log * 100.0));
      row.push_back(formed ? fmt_pct(smallest_falsifiable_pct(launches, c.between_sd_log, v.rule, v.family_cells))
                           : std::string("—"));
      row.push_back(formed ? fmt_pct(largest_holdable_pct(launches, c.between_sd_log, v.rule)) : std::string("—"));
      row.push_back(formed ? fmt::format("{}", launches_for_hold_power(c.between_sd_log, v.rule)) : std::string("—"));
      launch_rows.push_back(std::move(row));
    }
  }
  md += render_table(header, launch_rows, TableStyle::markdown);
  md += "\n![each launch's median error per cell](fig_campaign_launches.png)\n";
  return md;
}

}  // namespace

void write_campaign_h5(const CampaignContext& cx, const CampaignVerdict& v) {
  const std::string path = (std::filesystem::path(cx.dir) / "campaign.h5").string();
  H5File file(path, H5Mode::create_overwrite);
  {
    H5Handle root = file.group(kCampaignGroup);
    write_attributes(root.id(), {{"campaign_sha256", cx.campaign_sha256}, {"launches_sealed", v.launches_sealed},
                                 {"incomplete", v.incomplete()}, {"rule_version", v.rule.version},
                                 {"alpha", v.rule.family_alpha}, {"kill_switch_pct", v.rule.kill_switch_pct},
                                 {"family_cells", v.family_cells}});
    write_attribute(root.id(), "control_aa",
                    std::string(v.aa_holds ? "HOLDS" : v.aa_falsified ? "FALSIFIED" : "NOT_HELD"));
    write_attribute(root.id(), "estimand",
                    std::string("per cell, the mean over launches of each launch's median of d = ln(measured / "
                                "paired prediction); Student's t interval on L - 1 degrees of freedom"));
  }
  const auto as_int64 = [](const std::vector<int>& values) { return std::vector<std::int64_t>(values.begin(), values.end()); };
  file.write_dataset(std::string(kCampaignGroup) + "/launches_counted", as_int64(v.counted), {v.counted.size()});
  file.write_dataset(std::string(kCampaignGroup) + "/launches_missing", as_int64(v.missing), {v.missing.size()});
  if (!v.aa.empty()) {
    const std::string aa = std::string(kCampaignGroup) + "/aa";
    file.group(aa);
    file.write_dataset(aa + "/cell_rank", member_column(v.aa, &PooledAaCell::rank), {v.aa.size()});
    file.write_dataset(aa + "/cell_batch", member_column(v.aa, &PooledAaCell::batch), {v.aa.size()});
    file.write_dataset(aa + "/cell_context", member_column(v.aa, &PooledAaCell::context), {v.aa.size()});
    write_cells(file, aa, column(v.aa, [](const PooledAaCell& a) { return a.pooled; }), v, 1);
  }
  const auto cells_bc = grid_cells(cx.grid);
  for (const PooledFormK& p : v.cells) {
    const std::string group_path = verdict_path(p.form, p.k);
    H5Handle group = file.group(group_path);
    write_attribute(group.id(), "verdict", std::string(to_string(p.outcome)));
    write_attribute(group.id(), "reason", reason_of(p));
    if (p.outcome == Outcome::not_applicable) continue;
    using Cell = std::pair<int, int>;
    file.write_dataset(group_path + "/cell_batch", member_column(cells_bc, &Cell::first), {cells_bc.size()});
    file.write_dataset(group_path + "/cell_context", member_column(cells_bc, &Cell::second), {cells_bc.size()});
    write_cells(file, group_path, p.cells, v, v.family_cells);
  }
  file.flush();
}

std::string campaign_summary(const CampaignContext& cx, const CampaignVerdict& v) {
  std::string text = fmt::format("# {:<3} {:<11} {:<30} {:<36} {:>9}\n", "k", "form", "pooled verdict",
                                 "worst cell: mean error [1-2α interval]", "SD(%)");
  const auto cells_bc = grid_cells(cx.grid);
  for (const PooledFormK& p : v.cells) {
    if (p.outcome == Outcome::not_applicable) {
      text += fmt::format("  {:<3} {:<11} NOT_APPLICABLE\n", p.k, p.form);
      continue;
    }
    text += fmt::format("  {:<3} {:<11} {:<30} {:<36} {:>9.1f}\n", p.k, p.form, verdict_text(p),
                        fmt::join(worst_cell_text(p, cells_bc), ": "), worst_cell(p).between_sd_log * 100.0);
  }
  text += fmt::format("# pooled over launches {} of {} (L = {} sealed); A/A pooled: {}\n", fmt::join(v.counted, ", "),
                      v.launches_sealed, v.launches_sealed,
                      v.aa_holds ? "HOLDS" : v.aa_falsified ? "FALSIFIED" : "does not hold");
  if (v.incomplete())
    text += fmt::format("# INCOMPLETE: launches {} missing; this verdict pools {} of {} launches\n",
                        fmt::join(v.missing, ", "), v.counted.size(), v.launches_sealed);
  return text;
}

std::string write_campaign_report(const CampaignContext& cx, const CampaignVerdict& v) {
  return write_markdown_and_figures(campaign_report_markdown(cx, v), cx.dir, "--campaign", TPB_CAMPAIGN_PLOTS_SCRIPT,
                                    (std::filesystem::path(cx.dir) / "campaign.h5").string());
}

}  // namespace tpb
