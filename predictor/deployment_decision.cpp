#include "predictor/deployment_decision.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"

namespace tpb {
namespace {

constexpr const char* kHolds = "HOLDS";

// The figures of one (k, context) column at the grid's batches.
struct Column {
  std::vector<std::pair<int, double>> t_step_us, t_step_high_us;
  std::vector<std::pair<int, double>> compute_us, collective_us, host_us;  // measured terms
  std::vector<std::pair<int, double>> missing_us;                            // what the absent layers add (form)
  std::vector<std::pair<int, double>> form_compute_us, form_collective_us, form_all_reduce_us, form_host_us;

  void add_run_terms(int batch, const TermShares& t) {
    compute_us.emplace_back(batch, t.compute_us);
    collective_us.emplace_back(batch, t.collective_us);
    host_us.emplace_back(batch, t.host_us);
  }
  // A form's terms at one grid cell: what the absent layers add, and its split of the full step.
  void add_form_terms(int batch, const TermShares& t, double all_reduce_us, const LayerScaling& s) {
    missing_us.emplace_back(batch, missing_layers_us(t, all_reduce_us, s));
    form_compute_us.emplace_back(batch, t.compute_us);
    form_collective_us.emplace_back(batch, t.collective_us);
    form_all_reduce_us.emplace_back(batch, all_reduce_us);
    form_host_us.emplace_back(batch, t.host_us);
  }
};

// A degree not measured: its registered predictions under `form` are its only
// figures; the upper side widens them by the form's bound.
Column modelled_column(const ModelledDegree& m, int context, const std::string& form, double bound_pct,
                       const LayerScaling& s) {
  Column col;
  for (const auto& cell : m.calibration) {
    if (cell.context != context) continue;
    const Prediction p = find_prediction(m.predictions, form, m.k, cell.batch, context).prediction;
    col.t_step_us.emplace_back(cell.batch, p.t_step_us);
    col.t_step_high_us.emplace_back(cell.batch, p.t_step_us * (1 + bound_pct / 100));
    col.add_run_terms(cell.batch, p.terms);
    col.add_form_terms(cell.batch, p.terms, cell.inputs.n_ar * cell.inputs.t_ar_sweep_us, s);
  }
  return col;
}

Column column_of(const DecisionQuestion& q, int k, int context, const std::string& form, const LayerScaling& s) {
  const BootstrapOptions bootstrap = registered_bootstrap(q.registration);
  Column col;
  for (const auto& cell : q.measured) {
    if (cell.k != k || cell.context != context) continue;
    const double t = median(cell.t_step_us);
    col.t_step_us.emplace_back(cell.batch, t);
    col.t_step_high_us.emplace_back(cell.batch, bootstrap_median_ci(cell.t_step_us, bootstrap).high);
    // Unmeasured collectives: what the step spent beyond its compute, all of it charged to them.
    const double collective = cell.collective_us.value_or(std::max(0.0, t - cell.compute_us));
    col.add_run_terms(cell.batch, {cell.compute_us, collective, exposed_host_us(cell).value_or(0.0)});
    if (form.empty()) continue;
    const TermShares terms = find_prediction(q.registration.predictions, form, k, cell.batch, context).prediction.terms;
    const CellInputs& in = find_cell_inputs(q.registration, k, cell.batch, context);
    col.add_form_terms(cell.batch, terms, in.inputs.n_ar * in.inputs.t_ar_sweep_us, s);
  }
  return col;
}

// A term at `batch` on the same line as the step time; 0 when the line cannot be drawn.
double term_at(const std::vector<std::pair<int, double>>& points, std::int64_t batch) {
  const auto e = estimate_in_batch(points, batch);
  return e ? std::max(0.0, e->value) : 0.0;
}

DecisionRow decide_row(const Column& col, int k, std::int64_t batch, int context, bool at_max,
                       const DegreeDecision& degree, const LayerScaling& s) {
  DecisionRow row;
  row.k = k;
  row.batch = batch;
  row.context = context;
  row.at_max_batch = at_max;
  row.modelled_degree = !degree.measured;
  if (!degree.measured && degree.form.empty()) {
    row.note = degree.no_model_reason;
    return row;
  }
  const auto run = estimate_in_batch(col.t_step_us, batch);
  if (!run) {
    row.note = col.t_step_us.size() < 2 ? "one batch measured at this context: no line in batch"
                                        : "the line through the nearest measured batches falls with b: not extended";
    return row;
  }
  row.run = *run;
  row.run_high_us = estimate_in_batch(col.t_step_high_us, batch).value_or(*run).value;
  if (!degree.measured) {  // the run's figure is already the form's
    row.form = degree.form;
    row.error_ci_high_pct = degree.error_ci_high_pct;
  }
  if (!s.scaled()) {
    row.full_us = run->value;
    row.full_high_us = row.run_high_us;
    row.full_terms = {term_at(col.compute_us, batch), term_at(col.collective_us, batch), term_at(col.host_us, batch)};
    return row;
  }
  if (degree.form.empty()) {  // the reason in full is the degree's
    row.note = fmt::format("no full-model figure: no form HOLDS at TP-{} with a stated upper error bound", k);
    return row;
  }
  const auto missing = estimate_in_batch(col.missing_us, batch);
  if (!missing) {
    row.note = "the form's terms cannot be drawn in batch from one grid batch";
    return row;
  }
  row.form = degree.form;
  row.error_ci_high_pct = degree.error_ci_high_pct;
  row.full_us = run->value + missing->value;
  // A degree not measured already carries the bound in its run's upper side.
  row.full_high_us = row.run_high_us + missing->value * (1 + *degree.error_ci_high_pct / 100);
  const double all_reduce = term_at(col.form_all_reduce_us, batch);
  row.full_terms = {term_at(col.form_compute_us, batch) * s.compute_factor,
                    all_reduce * s.layer_ratio() + (term_at(col.form_collective_us, batch) - all_reduce),
                    term_at(col.form_host_us, batch) * s.layer_ratio()};
  return row;
}

std::string standings_text(const std::vector<FormStanding>& standings, int k) {
  std::vector<std::string> parts;
  for (const auto& s : standings)
    if (s.k == k)
      parts.push_back(fmt::format("{} {}{}", s.form, s.verdict,
                                  s.error_ci_high_pct ? fmt::format(" (≤ {:.2f} %)", *s.error_ci_high_pct)
                                                      : std::string(" (no upper error bound)")));
  return parts.empty() ? std::string("no verdict at this k") : fmt::format("{}", fmt::join(parts, ", "));
}

const ModelledDegree& modelled_degree(const Registration& r, int k) {
  for (const auto& m : r.modelled_degrees)
    if (m.k == k) return m;
  throw_error("tpbench", 1, fmt::format("TP-{} has no registered predictions", k), __FILE__, __LINE__);
}

DegreeDecision decide_degree(const DecisionQuestion& q, const DecisionDegree& d) {
  DegreeDecision out;
  out.k = d.k;
  out.measured = d.measured;
  out.capacity = device_capacity(d.line, q.budget_bytes, q.reserve_pct);
  out.kv_bytes_per_token = d.line.kv_bytes_per_token;
  const ModelledDegree* modelled = d.measured ? nullptr : &modelled_degree(q.registration, d.k);
  if (modelled) out.collective_model = modelled->collective_model;
  // The composition form: every figure of a degree not measured, or the layers that did not run.
  const std::optional<FormStanding> form = modelled ? form_for_unmeasured_degree(q.standings, q.registration.grid.tp)
                                           : d.layers.scaled() ? form_for_modelled_figures(q.standings, d.k)
                                                               : std::nullopt;
  if (form) {
    out.form = form->form;
    out.error_ci_high_pct = form->error_ci_high_pct;
  } else if (modelled) {
    out.no_model_reason = "no modelled figure: no form HOLDS with a stated upper error bound at every measured k > 1";
  } else if (d.layers.scaled()) {
    out.no_model_reason = fmt::format("no modelled figure: no form HOLDS at TP-{} with a stated upper error bound ({})",
                                      d.k, standings_text(q.standings, d.k));
  }
  std::vector<int> grid_batches = q.registration.grid.batch;
  std::sort(grid_batches.begin(), grid_batches.end());
  for (int c : q.registration.grid.context) {
    out.contexts.push_back(c);
    const std::int64_t max_batch = out.capacity.fits ? admissible_sequences(d.line, out.capacity, c + 1, 1) : 0;
    out.max_batch.push_back(max_batch);
    if (max_batch == 0) continue;
    const Column col = modelled ? (out.form.empty() ? Column{}
                                                    : modelled_column(*modelled, c, out.form,
                                                                      *out.error_ci_high_pct, d.layers))
                                : column_of(q, d.k, c, out.form, d.layers);
    for (int b : grid_batches)
      if (b <= max_batch) out.rows.push_back(decide_row(col, d.k, b, c, b == max_batch, out, d.layers));
    if (std::find(grid_batches.begin(), grid_batches.end(), max_batch) == grid_batches.end())
      out.rows.push_back(decide_row(col, d.k, max_batch, c, true, out, d.layers));
  }
  return out;
}

std::string largest_term(const TermShares& t) {
  if (t.collective_us >= t.compute_us && t.collective_us >= t.host_us) return "collective";
  return t.host_us > t.compute_us ? "host" : "compute";
}

std::string row_prediction(const DecisionRow& r, int layers_full) {
  const double high_ms = *r.full_high_us / 1000;
  const double tokens_low = r.batch / (*r.full_high_us * 1e-6) / r.k;
  if (r.measured())
    return fmt::format("a rerun of TP-{} at b={}, c={} measures a median TPOT ≤ {:.3f} ms (measured {:.3f} ms, "
                       "95 % CI high {:.3f} ms), i.e. ≥ {:.1f} tokens/s per device; the choice is falsified if it "
                       "measures more",
                       r.k, r.batch, r.context, high_ms, *r.tpot_ms(), high_ms, tokens_low);
  std::string basis = r.run->source == BatchSource::measured
                          ? std::string(r.modelled_degree ? "at a grid batch" : "measured in batch")
                          : fmt::format("{} in batch on the line through b={} and b={}", to_string(r.run->source),
                                        r.run->line_from_batch, r.run->line_to_batch);
  if (r.modelled_degree)
    basis = fmt::format("TP-{} not measured: the registered prediction of `{}` from its shard replay, {}", r.k,
                        r.form, basis);
  else if (!r.form.empty())
    basis += fmt::format("; layers scaled to {} by form `{}` (upper error bound {:.2f} %)", layers_full, r.form,
                         *r.error_ci_high_pct);
  return fmt::format("a TP-{} run of the full model ({} layers) at b={}, c={} measures a median TPOT ≤ {:.3f} ms "
                     "(MODELLED {:.3f} ms: {}), i.e. ≥ {:.1f} tokens/s per device; the choice is falsified if it "
                     "measures more",
                     r.k, layers_full, r.batch, r.context, high_ms, *r.tpot_ms(), basis, tokens_low);
}

SloChoice choose_for_context(const DeploymentDecision& d, int context, double slo_ms) {
  SloChoice choice;
  choice.context = context;
  const DecisionRow* best = nullptr;
  for (const auto& degree : d.degrees)
    for (const auto& row : degree.rows) {
      if (row.context != context || !row.full_high_us || *row.full_high_us / 1000 > slo_ms) continue;
      if (!best || *row.tokens_per_s_per_device() > *best->tokens_per_s_per_device()) best = &row;
    }
  if (!best) {
    choice.reason = fmt::format("no full-model figure at c={} has a TPOT upper side within {:g} ms", context, slo_ms);
    return choice;
  }
  choice.row = *best;
  choice.prediction = row_prediction(*best, d.layers_full);
  if (best->at_max_batch) {
    choice.bottleneck = "memory capacity";
    choice.reason = fmt::format("the SLO admits b={} and the memory budget admits no larger batch at TP-{}",
                                best->batch, best->k);
    return choice;
  }
  const TermShares& t = best->full_terms;
  const double total = t.total_us() > 0 ? t.total_us() : 1;
  choice.bottleneck = largest_term(t);
  choice.reason = fmt::format("the next batch at TP-{} exceeds the SLO; the step there is {:.0f} % compute, {:.0f} % "
                              "collective, {:.0f} % host",
                              best->k, t.compute_us / total * 100, t.collective_us / total * 100,
                              t.host_us / total * 100);
  return choice;
}

}  // namespace

std::optional<FormStanding> form_for_modelled_figures(const std::vector<FormStanding>& standings, int k) {
  std::optional<FormStanding> best;
  for (const auto& s : standings)
    if (s.k == k && s.verdict == kHolds && s.error_ci_high_pct &&
        (!best || *s.error_ci_high_pct < *best->error_ci_high_pct))
      best = s;
  return best;
}

std::optional<FormStanding> form_for_unmeasured_degree(const std::vector<FormStanding>& standings,
                                                       const std::vector<int>& measured_tp) {
  std::vector<std::string> forms;
  for (const auto& s : standings)
    if (std::find(forms.begin(), forms.end(), s.form) == forms.end()) forms.push_back(s.form);
  std::optional<FormStanding> best;
  for (const auto& form : forms) {
    std::optional<FormStanding> worst;
    for (int k : measured_tp) {
      if (k == 1) continue;
      const auto it = std::find_if(standings.begin(), standings.end(),
                                   [&](const FormStanding& s) { return s.form == form && s.k == k; });
      if (it == standings.end() || it->verdict != kHolds || !it->error_ci_high_pct) {
        worst.reset();
        break;
      }
      if (!worst || *it->error_ci_high_pct > *worst->error_ci_high_pct) worst = *it;
    }
    if (worst && (!best || *worst->error_ci_high_pct < *best->error_ci_high_pct)) best = worst;
  }
  return best;
}

const char* to_string(BatchSource source) {
  switch (source) {
    case BatchSource::measured: return "measured";
    case BatchSource::interpolated: return "interpolated";
    case BatchSource::extrapolated: return "extrapolated";
  }
  return "measured";
}

std::optional<BatchEstimate> estimate_in_batch(std::span<const std::pair<int, double>> points, std::int64_t batch) {
  std::vector<std::pair<int, double>> sorted(points.begin(), points.end());
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [b, v] : sorted)
    if (b == batch) return BatchEstimate{v, BatchSource::measured, 0, 0};
  if (sorted.size() < 2) return std::nullopt;
  // The segment around `batch`, or the outermost one on its side.
  std::size_t hi = 1;
  while (hi + 1 < sorted.size() && sorted[hi].first < batch) ++hi;
  const auto [b0, v0] = sorted[hi - 1];
  const auto [b1, v1] = sorted[hi];
  const double slope = (v1 - v0) / (b1 - b0);
  const bool inside = batch > sorted.front().first && batch < sorted.back().first;
  if (!inside && slope <= 0) return std::nullopt;
  return BatchEstimate{v0 + slope * (static_cast<double>(batch) - b0),
                       inside ? BatchSource::interpolated : BatchSource::extrapolated, b0, b1};
}

LayerScaling layer_scaling(int layers_run, int layers_full, double layer_weight_bytes, double once_weight_bytes) {
  const double run = layers_run * layer_weight_bytes + once_weight_bytes;
  const double full = layers_full * layer_weight_bytes + once_weight_bytes;
  return {layers_run, layers_full, run > 0 ? full / run : 1.0};
}

double missing_layers_us(const TermShares& form_terms, double all_reduce_term_us, const LayerScaling& s) {
  return (s.compute_factor - 1) * form_terms.compute_us + (s.layer_ratio() - 1) * (all_reduce_term_us + form_terms.host_us);
}

std::optional<double> DecisionRow::tpot_ms() const {
  if (!full_us) return std::nullopt;
  return *full_us / 1000;
}

std::optional<double> DecisionRow::tokens_per_s_per_device() const {
  if (!full_us) return std::nullopt;
  return static_cast<double>(batch) / (*full_us * 1e-6) / k;
}

DeploymentDecision decide_deployment(const DecisionQuestion& q) {
  DeploymentDecision d;
  d.budget_bytes = q.budget_bytes;
  d.budget_source = q.budget_source;
  d.reserve_pct = q.reserve_pct;
  d.tpot_slo_ms = q.tpot_slo_ms;
  if (!q.degrees.empty()) {
    d.layers_run = q.degrees.front().layers.layers_run;
    d.layers_full = q.degrees.front().layers.layers_full;
  }
  for (const auto& degree : q.degrees) d.degrees.push_back(decide_degree(q, degree));
  if (q.tpot_slo_ms)
    for (int c : q.registration.grid.context) d.choices.push_back(choose_for_context(d, c, *q.tpot_slo_ms));
  return d;
}

}  // namespace tpb
