#include "results/report_decision.hpp"

#include <fmt/format.h>

#include "results/decision_file.hpp"

namespace tpb {
namespace {

std::string readable(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.2f} {}", value, units[unit]);
}

// How a row's figure was obtained, in words.
std::string basis(const DecisionRow& r, int layers_run, int layers_full) {
  if (!r.run) return r.note;
  std::string text;
  if (r.modelled_degree)
    text = fmt::format("TP-{} not measured: registered prediction of `{}` (upper error bound {:.2f} %) from its shard "
                       "replay",
                       r.k, r.form, *r.error_ci_high_pct);
  else if (r.run->source == BatchSource::measured)
    text = "measured";
  else if (r.run->source == BatchSource::interpolated)
    text = fmt::format("interpolated in batch between b={} and b={}", r.run->line_from_batch, r.run->line_to_batch);
  else
    text = fmt::format("extrapolated in batch on the line through b={} and b={}", r.run->line_from_batch,
                       r.run->line_to_batch);
  if (r.modelled_degree && r.run->source != BatchSource::measured)
    text += fmt::format(", {} in batch through b={} and b={}", to_string(r.run->source), r.run->line_from_batch,
                        r.run->line_to_batch);
  if (!r.form.empty() && layers_run != layers_full)
    text += fmt::format("; layers {} → {} by `{}` (upper error bound {:.2f} %)", layers_run, layers_full, r.form,
                        *r.error_ci_high_pct);
  else if (!r.full_us)
    text += "; " + r.note;
  return text;
}

std::string optional_figure(const std::optional<double>& value, const char* format_spec) {
  return value ? fmt::format(fmt::runtime(format_spec), *value) : std::string("—");
}

std::string capacity_table(const DeploymentDecision& d) {
  if (d.degrees.empty()) return "";
  std::string s = "| k | fits | KV tokens per device |";
  for (int c : d.degrees.front().contexts) s += fmt::format(" largest batch at c={} |", c);
  s += "\n|---|---|---|";
  for (std::size_t i = 0; i < d.degrees.front().contexts.size(); ++i) s += "---|";
  s += "\n";
  for (const auto& g : d.degrees) {
    s += fmt::format("| {}{} | {} | {} |", g.k, g.measured ? "" : " (not measured)",
                     g.capacity.fits ? "yes" : "**does not fit**",
                     g.capacity.fits ? fmt::format("{}", g.capacity.kv_tokens_per_device) : std::string("—"));
    for (auto b : g.max_batch) s += fmt::format(" {} |", b);
    s += "\n";
  }
  return s + "\n";
}

std::string rows_table(const DeploymentDecision& d) {
  std::string s = fmt::format(
      "| k | b | c | row | t_step at {} layers (µs) | full model t_step (µs) | upper side (µs) | TPOT (ms) | "
      "tokens/s per device | basis |\n|---|---|---|---|---|---|---|---|---|---|\n",
      d.layers_run);
  for (const auto& g : d.degrees)
    for (const auto& r : g.rows)
      s += fmt::format("| {} | {}{} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.k, r.batch,
                       r.at_max_batch ? " (max)" : "", r.context, r.measured() ? "measured" : "**MODELLED**",
                       r.run ? fmt::format("{:.1f}", r.run->value) : std::string("—"),
                       optional_figure(r.full_us, "{:.1f}"), optional_figure(r.full_high_us, "{:.1f}"),
                       optional_figure(r.tpot_ms(), "{:.3f}"), optional_figure(r.tokens_per_s_per_device(), "{:.1f}"),
                       basis(r, d.layers_run, d.layers_full));
  return s + "\n";
}

std::string forms_text(const DeploymentDecision& d) {
  std::string s =
      "Forms behind the MODELLED rows:\n\n"
      "- **In batch**: t_step is taken as linear in b through the two nearest measured batches of the same k and "
      "c (interpolated between them; extrapolated beyond the grid's smallest or largest batch, never where that "
      "line falls with b). Boundary: the batches named in each row; an extrapolated figure assumes the step stays in "
      "the regime of the measured batches (weight reads fixed, per-sequence work growing with b), which the study "
      "did not measure there.\n";
  if (d.layers_run != d.layers_full) {
    s += fmt::format(
        "- **In layers** ({} of {} ran): the full step is the measured one plus what the {} missing layers add in the "
        "terms of a form that HOLDS: (compute factor − 1) · compute + ({}/{} − 1) · (n_ar · t_ar_sweep + host), the "
        "compute factor being the ratio of weight bytes read per step (all layers and the LM head against those "
        "that ran); the logits all-gather is not scaled. Its upper side widens the added part by the form's upper "
        "error bound.\n",
        d.layers_run, d.layers_full, d.layers_full - d.layers_run, d.layers_full, d.layers_run);
    for (const auto& g : d.degrees)
      s += g.form.empty() ? fmt::format("  - TP-{}: {}.\n", g.k, g.no_model_reason.empty() ? "none" : g.no_model_reason)
                          : fmt::format("  - TP-{}: form `{}`, upper error bound {:.2f} %.\n", g.k, g.form,
                                        *g.error_ci_high_pct);
  }
  for (const auto& g : d.degrees)
    if (!g.measured)
      s += fmt::format("- **TP-{} (not measured, every figure MODELLED)**: compute from the replay of its shard shapes "
                       "on one rank during calibration; collective terms by the {}. {}\n",
                       g.k, g.collective_model,
                       g.form.empty() ? g.no_model_reason
                                      : fmt::format("Form `{}`, the one that HOLDS at every measured k > 1 with the "
                                                    "smallest largest upper error bound ({:.2f} %).",
                                                    g.form, *g.error_ci_high_pct));
  return s + "\n";
}

std::string slo_text(const DeploymentDecision& d) {
  if (!d.tpot_slo_ms) return "No `--tpot-slo` was declared: no degree is chosen.\n\n";
  std::string s = fmt::format("### Choice under the TPOT SLO of {:g} ms\n\n", *d.tpot_slo_ms);
  for (const auto& c : d.choices) {
    if (!c.row) {
      s += fmt::format("- c={}: nothing chosen: {}.\n", c.context, c.reason);
      continue;
    }
    s += fmt::format("- c={}: **TP-{}** at b={} ({}): TPOT {:.3f} ms, {:.1f} tokens/s per device.\n", c.context,
                     c.row->k, c.row->batch, c.row->measured() ? "measured" : "MODELLED", *c.row->tpot_ms(),
                     *c.row->tokens_per_s_per_device());
    s += fmt::format("  - Prediction: {}.\n", c.prediction);
    s += fmt::format("  - Next bottleneck: **{}** ({}).\n", c.bottleneck, c.reason);
  }
  return s + "\n";
}

}  // namespace

std::string decision_markdown(const DeploymentDecision& d) {
  std::string s = "## Decision\n\n";
  s += fmt::format(
      "Memory budget per device {} ({}), {:g} % kept in reserve. The largest admissible batch is the largest b whose "
      "estimate for the full model ({} layers: weight shard, KV cache of c + 1 tokens per sequence, activations, "
      "workspaces, communication buffers; `tp_decoder/memory_estimate`, the pre-allocation check's estimator) fits "
      "the budget less the reserve.\n\n",
      readable(d.budget_bytes), d.budget_source, d.reserve_pct, d.layers_full);
  s += capacity_table(d);
  s += "Rows marked measured come from `/step` alone; every other figure is **MODELLED**, with its basis stated. "
       "TPOT is the full model's t_step; tokens/s per device is b / t_step / k.\n\n";
  s += rows_table(d);
  s += forms_text(d);
  s += slo_text(d);
  s += "![tail waste per block size](fig_tail_waste.png)\n\n`fig_tail_waste.png`: KV bytes unused in each "
       "sequence's final block (c + 1 tokens) for blocks of 8, 16 and 32 tokens, at each k's per-device KV bytes per "
       "token.\n\n![capacity and tokens/s per device against k](fig_capacity.png)\n\n`fig_capacity.png`: the "
       "largest admissible batch per device and the tokens/s per device at it, against k; hollow markers are "
       "MODELLED.\n\n";
  return s;
}

std::string decision_section(const H5File& file) {
  if (!has_decision(file))
    return "## Decision\n\nThis file holds no `/decision` (written by `mpi_bench run` after the verdict).\n\n";
  return decision_markdown(read_decision(file));
}

}  // namespace tpb
