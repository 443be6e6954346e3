#include "results/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "common/error.hpp"
#include "common/samples.hpp"
#include "predictor/model_forms.hpp"
#include "predictor/piecewise_fit.hpp"
#include "predictor/statistics.hpp"
#include "predictor/study_design.hpp"
#include "predictor/study_evaluation.hpp"
#include "results/custody.hpp"
#include "common/choices.hpp"
#include "results/layout.hpp"
#include "results/report_roofline.hpp"
#include "results/report_rounds.hpp"
#include "results/report_transfer.hpp"
#include "results/report_ablation.hpp"
#include "results/report_decision.hpp"
#include "results/results_file.hpp"
#include "results/round_records.hpp"
#include "results/study_file.hpp"

namespace tpb {
namespace {

// How a term that was not measured is shown: never as 0.
constexpr const char* kNotMeasured = "not measured";

std::string hostnames(const H5File& file) {
  H5Handle meta = file.open_object(kMetaGroup);
  if (!has_attribute(meta.id(), "hostnames")) return "?";
  return fmt::format("{}", fmt::join(read_string_list_attribute(meta.id(), "hostnames"), ", "));
}

std::string attribute_or(const H5File& file, const std::string& object, const char* name) {
  if (!file.exists(object)) return "?";
  H5Handle handle = file.open_object(object);
  return has_attribute(handle.id(), name) ? read_string_attribute(handle.id(), name) : std::string("?");
}

// The stored verdicts must be what the raw data gives today.
void check_against_stored(const H5File& file, const std::vector<FormDegreeResult>& results) {
  for (const auto& r : results) {
    const std::string path = verdict_group_path(r.judgement.form, r.judgement.k);
    if (!file.exists(path))
      throw UsageError(fmt::format("FILE: '{}' has no {}: run 'mpi_bench verdict' first", file.path(), path));
    H5Handle group = file.open_object(path);
    const double stored_mape = read_double_attribute(group.id(), "point_mape_pct");
    const std::string stored_verdict = read_string_attribute(group.id(), "point_verdict");
    TPB_CHECK(stored_mape == r.judgement.mape_pct && stored_verdict == to_string(r.judgement.verdict),
              fmt::format("{}: stored MAPE {} % / {} but the raw datasets give {} % / {}", path, stored_mape,
                          stored_verdict, r.judgement.mape_pct, to_string(r.judgement.verdict)));
  }
}

std::string workload_section(const H5File& file, const Registration& r) {
  const Workload& w = r.workload;
  std::string s = "## Question and declared workload\n\n";
  s += "Does one decode step under tensor parallelism of degree k cost `t_compute(1)/k + n_ar · t_ar_sweep(k, "
       "ar_bytes) + n_ag · t_ag_sweep(k, ag_bytes)`? Each model form below was registered before any TP-k step ran, and is judged per TP degree "
       "against its kill switch.\n\n";
  s += "| item | value |\n|---|---|\n";
  s += fmt::format("| model | `{}` ({}), sha256 `{}` |\n", w.model, w.config_path, w.config_sha256.substr(0, 16));
  s += fmt::format("| layers run | {} |\n| hidden, vocab | {}, {} |\n", w.layers, w.hidden_size, w.vocab_size);
  s += fmt::format("| backend | {} ({} B per activation element) |\n", w.backend, w.bytes_per_element);
  s += fmt::format("| grid | k ∈ {{{}}}, b ∈ {{{}}}, c ∈ {{{}}} |\n", fmt::join(r.grid.tp, ", "),
                   fmt::join(r.grid.batch, ", "), fmt::join(r.grid.context, ", "));
  s += fmt::format("| samples | {} warm-up + {} timed steps per point; bootstrap {} resamples, seed {} |\n",
                   w.warmup_iters, w.iters, w.bootstrap_resamples, w.bootstrap_seed);
  s += fmt::format("| hosts | {} |\n", hostnames(file));
  s += fmt::format("| tool | tpbench {} (git {}) |\n", attribute_or(file, kMetaGroup, "tool_version"),
                   attribute_or(file, kMetaGroup, "git_sha"));
  s += fmt::format("| command | `{}` |\n\n", attribute_or(file, kMetaGroup, "command_line"));
  return s;
}

std::string prereg_section(const H5File& file, const Registration& r) {
  const PreregRecord prereg = read_prereg(file);
  const MeasurementStamp stamp = read_measurement_stamp(file);
  std::string s = "## Pre-registration\n\n";
  s += fmt::format("- predictions.json SHA-256: `{}` (stored in `/prereg`, checked before this report)\n",
                   prereg.sha256);
  s += fmt::format("- calibrated at {}, registered at {}, measurement started at {}, judged at {}\n",
                   attribute_or(file, kStudyGroup, "calibrated_at"), prereg.registered_at, stamp.started_at,
                   attribute_or(file, kVerdictGroup, "judged_at"));
  s += fmt::format("- calibration datasets SHA-256 `{}` over {} datasets of `{}`\n", r.source.datasets_sha256,
                   r.source.datasets.size(), r.source.results_file);
  s += fmt::format("- decided by the rule sealed in `decision_rule` (version {})\n", r.design.rule.version);
  if (r.roofline) s += roofline_ceilings_line(*r.roofline);
  s += "\n";
  s += "| form | equation | kill switch K |\n|---|---|---|\n";
  for (const auto& form : judged_forms(r)) {
    const OutsideForm* outside = find_outside_form(r, form.name);
    s += fmt::format("| `{}` | {} | {:.2f} % |\n", form.name,
                     outside ? fmt::format("outside, from `{}` (SHA-256 `{}`), {} rows{}", outside->source_name,
                                           outside->sha256, outside->rows.size(),
                                           outside->has_terms ? " with terms" : "")
                             : fmt::format("`{}`", form.formula),
                     kill_switch_for(r.kill_switches, form.name));
  }
  s += "\n";
  return s;
}

// `judged`: the point rule is the verdict (a file without rounds). In a
// study measured in rounds the first round's points only describe, so the
// table carries no verdict: the decision over rounds is the verdict.
std::string summary_section(const std::vector<FormDegreeResult>& results, bool judged) {
  std::string s = judged ? "## Verdicts per TP degree\n\n| k | form | MAPE | kill switch | verdict | localizing term (grid "
                           "mean) |\n|---|---|---|---|---|---|\n"
                         : "## First round per TP degree\n\n| k | form | MAPE (first round) | localizing term (grid "
                           "mean) |\n|---|---|---|---|\n";
  std::vector<const FormDegreeResult*> sorted;
  for (const auto& r : results) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto* a, auto* b) { return a->judgement.k < b->judgement.k; });
  for (const auto* r : sorted) {
    const std::string culprit = fmt::format("{} {:+.1f} µs ({:+.1f} % of t_step)", r->culprit.term,
                                            r->culprit.departure_us, r->culprit.departure_pct);
    s += judged ? fmt::format("| {} | `{}` | {:.2f} % | {:.2f} % | **{}** | {} |\n", r->judgement.k, r->judgement.form,
                              r->judgement.mape_pct, r->judgement.threshold_pct, to_string(r->judgement.verdict),
                              culprit)
                : fmt::format("| {} | `{}` | {:.2f} % | {} |\n", r->judgement.k, r->judgement.form,
                              r->judgement.mape_pct, culprit);
  }
  s += judged ? "\nMAPE and verdicts are recomputed from `/step/k*/b*_c*/t_step_us` (slowest rank per iteration, "
                "median over iterations) and the predictions in `/prereg`; they equal `/verdict`.\n\n"
              : "\nMAPE recomputed from `/step/k*/b*_c*/t_step_us` (the first round: slowest rank per iteration, "
                "median over iterations) and the predictions in `/prereg`; it equals `/verdict/*/k*` `mape_pct`.\n\n";
  return s;
}

std::string degree_section(int k, const std::vector<FormDegreeResult>& results,
                           const std::vector<MeasuredCell>& measured, bool judged) {
  std::string s = fmt::format("## TP-{}\n\n", k);
  s += "| form | b | c | predicted t_step (µs) | measured median (µs) | 95 % CI (µs) | error | localizing term |\n"
       "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    if (r.judgement.k != k) continue;
    for (const auto& cell : r.cells) {
      const CellComparison& c = cell.comparison;
      s += fmt::format("| `{}` | {} | {} | {:.1f} | {:.1f} | [{:.1f}, {:.1f}] | {:+.2f} % | {} {:+.1f} µs ({:+.1f} %) |\n",
                       r.judgement.form, c.batch, c.context, c.predicted_us, c.measured_us, c.measured_ci.low,
                       c.measured_ci.high, c.signed_error_pct, cell.culprit.term, cell.culprit.departure_us,
                       cell.culprit.departure_pct);
    }
  }
  s += "\nMeasured terms (median over iterations of the slowest rank, µs):\n\n"
       "| b | c | t_step | compute (--no-comm) | collectives in situ | t_host |\n|---|---|---|---|---|---|\n";
  for (const auto& m : measured)
    if (m.k == k)
      s += fmt::format("| {} | {} | {:.1f} | {:.1f} | {} | {:.1f} |\n", m.batch, m.context, median(m.t_step_us),
                       m.compute_us, m.collective_us ? fmt::format("{:.1f}", *m.collective_us) : kNotMeasured,
                       m.host_us);
  if (!judged) return s + "\n";
  s += "\nVerdicts:";
  for (const auto& r : results)
    if (r.judgement.k == k)
      s += fmt::format(" `{}` **{}** (MAPE {:.2f} %);", r.judgement.form, to_string(r.judgement.verdict),
                       r.judgement.mape_pct);
  s += "\n\n";
  return s;
}

std::string speedup_section(const Registration& r, const std::vector<MeasuredCell>& measured) {
  const auto rows = speedups(r, measured);
  std::string s = "## Speedup from k to 2k\n\n";
  if (rows.empty()) return s + "The grid holds no pair k, 2k.\n\n";
  s += "| from | to | measured | ideal |\n|---|---|---|---|\n";
  for (const auto& row : rows)
    s += fmt::format("| TP-{} | TP-{} | {:.3f}× | {:.3f}× |\n", row.k_from, row.k_to, row.measured, row.ideal);
  return s + "\nRatio of grid-mean median t_step (measured) and of grid-mean ideal predictions.\n\n";
}

std::string control_section(const H5File& file, const Registration& r) {
  std::string s = "## Same-node control (TP-1 on every rank)\n\n"
                  "| b | c | mode | per-rank medians (µs) | spread (max−min)/median |\n|---|---|---|---|---|\n";
  for (int b : r.grid.batch)
    for (int c : r.grid.context)
      for (const ControlMode mode : {ControlMode::concurrent, ControlMode::alone}) {
        const std::string path = control_t_rank_path(mode, b, c);
        if (!file.exists(path)) continue;
        std::vector<std::uint64_t> dims;
        const std::vector<double> values = file.read_doubles(path, &dims);
        std::vector<double> medians;
        for (std::uint64_t rank = 0; rank < dims[1]; ++rank)
          medians.push_back(median(select_columns(values, dims[1], rank, 1)));
        const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
        std::vector<std::string> text;
        for (double m : medians) text.push_back(fmt::format("{:.1f}", m));
        s += fmt::format("| {} | {} | {} | {} | {:.1f} % |\n", b, c,
                         mode == ControlMode::concurrent ? "concurrent" : "alone", fmt::join(text, ", "),
                         (*hi - *lo) / median(medians) * 100);
      }
  return s + "\nFrom `/control/{concurrent,alone}/b*_c*/t_rank_us`. A spread comparable to a form's error means "
             "rank-to-rank variance alone could explain it.\n\n";
}

std::string fit_section(const H5File& file, const Registration& r) {
  std::string s = "## Collective fits (calibration)\n\n| collective | k | segment (B) | α (µs) | β (GB/s) | R² |\n"
                  "|---|---|---|---|---|---|\n";
  for (const SweepRoot root : {SweepRoot::all_reduce, SweepRoot::all_gather})
    for (int k : r.grid.tp) {
      if (k == 1) continue;  // a group of one rank issues no collective: no sweep
      const SweepMedians sweep = read_sweep_medians(file, root, k);
      const std::string name = sweep_root_path(root).substr(1);
      const PiecewiseFit fit = fit_piecewise(sweep.bytes, sweep.time_us);
      for (const auto& seg : fit.segments)
        s += fmt::format("| {} | {} | {:.0f} – {:.0f} | {:.2f} | {:.3g} | {:.4f} |\n", name, k, seg.min_bytes,
                         seg.max_bytes, seg.fit.alpha_us, seg.fit.beta_GBps, seg.fit.r2);
      s += fmt::format("| {} | {} | whole piecewise model | | | {:.4f} |\n", name, k, fit.r2);
    }
  return s + "\nPiecewise latency-bandwidth fits of the slowest-rank medians in `/sweep/k*/time_us` and "
             "`/sweep_allgather/k*/time_us`; the predictions evaluate them at each cell's `ar_bytes` / logits "
             "size.\n\n";
}

std::string limits_section(const Registration& r, const H5File& file) {
  std::string s = "## Limits of inference\n\n";
  s += fmt::format("- Measured: t_step, t_host and in-situ collective times of TP-k for k ∈ {{{}}} on this "
                   "machine ({}), the TP-1 compute by ablation, shard replays, and standalone sweeps.\n",
                   fmt::join(r.grid.tp, ", "), hostnames(file));
  s += "- Modelled, not measured: any TP degree or node count not in the grid; the full layer count when "
       "`--layers` reduced it (every term scales with layers, the all-gather does not).\n";
  s += fmt::format("- Backend `{}`: ", r.workload.backend);
  s += parse_backend_kind("study backend", r.workload.backend) == BackendKind::cpu
           ? "ranks share one host's memory bandwidth and cores, so TP-k here tests the composition on CPU cores, "
             "not on GPUs; the host-issue term is part of compute on a host-synchronous backend.\n"
           : "per-rank GPUs; in-situ collective times come from separate profiled iterations (events between "
             "kernels would perturb the timed ones).\n";
  s += fmt::format("- Statistics: the verdict is decided over the rounds of this one launch by the sealed rule "
                   "(version {}, in \"Pre-registration\"); the first round's tables show medians over iterations "
                   "with percentile-bootstrap 95 % intervals and decide nothing.\n\n",
                   r.design.rule.version);
  return s;
}

std::string bottleneck_section(const std::vector<FormDegreeResult>& results, const std::vector<MeasuredCell>& m,
                               const Registration& r) {
  const int k = r.grid.tp.back();
  double step = 0, compute = 0, collective = 0, host = 0;
  bool collective_measured = true;
  for (const auto& cell : m)
    if (cell.k == k) {
      step += median(cell.t_step_us);
      compute += cell.compute_us;
      collective_measured = collective_measured && cell.collective_us.has_value();
      if (!collective_measured) continue;
      collective += *cell.collective_us;
      host += *exposed_host_us(cell);
    }
  std::string s = "## Next bottleneck\n\n";
  if (!collective_measured)
    return s + fmt::format("At TP-{} (grid mean), compute is {:.1f} % of t_step; the collectives were {}, so "
                           "the split between compute, collectives and host time cannot be read from this file.\n\n",
                           k, compute / step * 100, kNotMeasured);
  s += fmt::format("At TP-{} (grid mean), compute is {:.1f} % of t_step, collectives {:.1f} %, exposed host "
                   "time {:.1f} %. ",
                   k, compute / step * 100, collective / step * 100, host / step * 100);
  for (const auto& res : results)
    if (res.judgement.form == "ideal" && res.judgement.k == k)
      s += fmt::format("The ideal form's largest departure is the {} term ({:+.1f} µs, {:+.1f} % of t_step): ",
                       res.culprit.term, res.culprit.departure_us, res.culprit.departure_pct);
  s += collective >= compute ? "the collectives dominate; a faster interconnect or fewer/larger all-reduces is "
                               "what the data points to.\n\n"
                             : "compute still dominates; the step is bound by the per-rank shard work.\n\n";
  return s;
}

}  // namespace

std::string render_report_markdown(const std::string& results_path) {
  const H5File file(results_path, H5Mode::read_only);
  const Registration r = checked_registration(file);
  const std::vector<MeasuredCell> measured = read_measured_cells(file, r.grid);
  const std::vector<FormDegreeResult> results = evaluate_study(r, measured, registered_bootstrap(r));
  check_against_stored(file, results);

  const bool rounds = has_rounds(file);
  std::string md = fmt::format("# tpbench study: {} under TP {{{}}}\n\n", r.workload.model, fmt::join(r.grid.tp, ", "));
  md += fmt::format("Results file `{}`; complete={}.\n\n", results_path, results_file_complete(file) ? 1 : 0);
  std::optional<RoundsReport> decided;
  if (rounds) decided = rounds_report(file, r);
  if (decided) md += decided->answer;
  md += workload_section(file, r);
  md += prereg_section(file, r);
  if (decided) {
    md += decided->section;
    md += "## Single pass (first round): descriptive only\n\nThe tables below describe the first round's points "
          "alone (the MAPE of their medians, per-cell errors, the point localizing term); they decide nothing. The "
          "verdict is the decision over rounds above.\n\n";
  }
  md += summary_section(results, !rounds);
  for (int k : r.grid.tp) md += degree_section(k, results, measured, !rounds);
  md += speedup_section(r, measured);
  md += control_section(file, r);
  md += fit_section(file, r);
  md += limits_section(r, file);
  md += bottleneck_section(results, measured, r);
  md += transfer_section(file, r, measured);
  md += ablation_sections(file, r, results, measured);
  md += decision_section(file);
  md += environment_report_section(file);
  md += "## Figures\n\n"
        "![t_step against k](fig_t_step_vs_k.png)\n\n"
        "`fig_t_step_vs_k.png`: measured median t_step (with 95 % CI) and every form's prediction against k, per "
        "(b, c); recomputed from `/step/k*/b*_c*/t_step_us` and `/prereg/predictions_json`.\n\n"
        "![terms per k](fig_terms.png)\n\n"
        "`fig_terms.png`: stacked measured terms per k (grid mean): compute from `/step_nocomm/k*/…/t_step_us`, "
        "collectives from `/step/k*/…/t_ar_insitu_us` (+ `t_ag_insitu_us`), exposed host from "
        "`/step/k*/…/t_host_us`.\n\n"
        "![sweeps with fits](fig_sweep.png)\n\n"
        "`fig_sweep.png`: all-reduce and all-gather sweeps (slowest-rank medians of `/sweep*/k*/time_us`) with "
        "their piecewise fits and the step's payloads marked.\n";
  return md;
}

std::string write_report(const std::string& results_path, const std::string& out_dir) {
  const std::string markdown = render_report_markdown(results_path);
  std::filesystem::create_directories(out_dir);
  return write_markdown_and_figures(markdown, out_dir, "-o", TPB_REPORT_PLOTS_SCRIPT, results_path);
}

std::string write_markdown_and_figures(const std::string& markdown, const std::string& dir, const char* option,
                                       const char* script, const std::string& data_path) {
  const std::string md_path = (std::filesystem::path(dir) / "report.md").string();
  std::ofstream out(md_path, std::ios::trunc);
  out << markdown;
  out.close();
  if (!out) throw UsageError(fmt::format("{}: cannot write '{}'", option, md_path));
  const std::string command = fmt::format("/usr/bin/python3 '{}' '{}' '{}'", script, data_path, dir);
  const int status = std::system(command.c_str());
  if (status != 0)
    throw_error("tpbench", status, fmt::format("drawing the figures failed: {}", command), __FILE__, __LINE__);
  return md_path;
}

}  // namespace tpb
