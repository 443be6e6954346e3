#include "predictor/registration.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "predictor/json_field.hpp"

namespace tpb {
namespace {

using nlohmann::ordered_json;

// The keys of each record below as the registration spells them, in
// document order: one list for the writer and the reader (json_field.hpp).
constexpr auto kTermMembers = [](auto&& visit, auto& t) {
  visit("compute_us", t.compute_us);
  visit("collective_us", t.collective_us);
  visit("host_us", t.host_us);
};

constexpr auto kCellInputMembers = [](auto&& visit, auto& cell) {
  visit("k", cell.inputs.k);
  visit("batch", cell.batch);
  visit("context", cell.context);
  visit("ar_bytes", cell.ar_bytes);
  visit("ag_bytes", cell.ag_bytes);
  visit("t_compute1_us", cell.inputs.t_compute1_us);
  visit("t_host_us", cell.inputs.t_host_us);
  visit("t_replay_us", cell.inputs.t_replay_us);
  visit("n_ar", cell.inputs.n_ar);
  visit("t_ar_sweep_us", cell.inputs.t_ar_sweep_us);
  visit("n_ag", cell.inputs.n_ag);
  visit("t_ag_sweep_us", cell.inputs.t_ag_sweep_us);
};

constexpr auto kPredictionMembers = [](auto&& visit, auto& p) {
  visit("form", p.form);
  visit("k", p.k);
  visit("batch", p.batch);
  visit("context", p.context);
  visit("t_step_us", p.prediction.t_step_us);
};

constexpr auto kSourceMembers = [](auto&& visit, auto& s) {
  visit("results_file", s.results_file);
  visit("datasets", s.datasets);
  visit("datasets_sha256", s.datasets_sha256);
};

constexpr auto kWorkloadMembers = [](auto&& visit, auto& w) {
  visit("model", w.model);
  visit("config_path", w.config_path);
  visit("config_sha256", w.config_sha256);
  visit("layers", w.layers);
  visit("hidden_size", w.hidden_size);
  visit("vocab_size", w.vocab_size);
  visit("bytes_per_element", w.bytes_per_element);
  visit("backend", w.backend);
  visit("warmup_iters", w.warmup_iters);
  visit("iters", w.iters);
  visit("bootstrap_seed", w.bootstrap_seed);
  visit("bootstrap_resamples", w.bootstrap_resamples);
};

ordered_json inputs_json(const CellInputs& cell, bool with_transfer, bool with_roofline) {
  ordered_json out = members_json(cell, kCellInputMembers);
  if (with_transfer) out["t_transfer_us"] = cell.inputs.t_transfer_us;
  if (with_roofline) out["t_roofline_us"] = cell.inputs.t_roofline_us;
  return out;
}

// This document's fields (json_field.hpp).
constexpr const char* kWhere = "registration";
template <typename T>
T field(const ordered_json& object, const char* name) { return json_field<T>(object, name, kWhere); }
const ordered_json& section(const ordered_json& object, const char* name) { return json_section(object, name, kWhere); }

ordered_json prediction_json(const CellPrediction& p) {
  ordered_json out = members_json(p, kPredictionMembers);
  out["terms"] = members_json(p.prediction.terms, kTermMembers);
  return out;
}

CellInputs parse_cell_inputs(const ordered_json& c) {
  CellInputs cell;
  read_members(c, kWhere, cell, kCellInputMembers);
  if (c.contains("t_transfer_us")) cell.inputs.t_transfer_us = field<double>(c, "t_transfer_us");
  if (c.contains("t_roofline_us")) cell.inputs.t_roofline_us = field<double>(c, "t_roofline_us");
  return cell;
}

CellPrediction parse_prediction(const ordered_json& p) {
  CellPrediction cell;
  read_members(section(p, "terms"), kWhere, cell.prediction.terms, kTermMembers);
  read_members(p, kWhere, cell, kPredictionMembers);
  return cell;
}

// The decision's part: declared with the study, sealed with its predictions.
ordered_json decision_json(const Registration& r) {
  ordered_json modelled = ordered_json::array();
  for (const auto& m : r.modelled_degrees) {
    ordered_json calibration = ordered_json::array(), predictions = ordered_json::array();
    for (const auto& cell : m.calibration) calibration.push_back(inputs_json(cell, false, false));
    for (const auto& p : m.predictions) predictions.push_back(prediction_json(p));
    modelled.push_back({{"k", m.k},
                        {"label", "MODELLED"},
                        {"collective_model", m.collective_model},
                        {"calibration_inputs", calibration},
                        {"predictions", predictions}});
  }
  return {{"tpot_slo_ms", r.decision.tpot_slo_ms ? ordered_json(*r.decision.tpot_slo_ms) : ordered_json(nullptr)},
          {"predict_tp", r.decision.predict_tp},
          {"modelled_degrees", modelled}};
}

void parse_decision(const ordered_json& d, Registration& r) {
  if (d.contains("tpot_slo_ms") && !d.at("tpot_slo_ms").is_null()) r.decision.tpot_slo_ms = field<double>(d, "tpot_slo_ms");
  r.decision.predict_tp = field<std::vector<int>>(d, "predict_tp");
  for (const auto& m : section(d, "modelled_degrees")) {
    ModelledDegree degree{field<int>(m, "k"), field<std::string>(m, "collective_model"), {}, {}};
    for (const auto& c : section(m, "calibration_inputs")) degree.calibration.push_back(parse_cell_inputs(c));
    for (const auto& p : section(m, "predictions")) degree.predictions.push_back(parse_prediction(p));
    r.modelled_degrees.push_back(degree);
  }
}

// The bandwidth is sealed under the name of what it measured: a host read
// (read_GBps) or a device copy that counts bytes read and written (copy_GBps,
// with the GEMM its peak came from).
ordered_json roofline_json(const RooflineCeilings& c) {
  const bool host_read = c.bandwidth == RooflineBandwidth::host_read;
  ordered_json out = {{host_read ? "read_GBps" : "copy_GBps", c.bandwidth_GBps},
                      {"peak_GFLOPs", c.peak_GFLOPs},
                      {"bandwidth_probe", c.bandwidth_probe}};
  if (!host_read) out["peak_probe"] = c.peak_probe;
  out["bytes_priced"] = "read + written";
  return out;
}

RooflineCeilings parse_roofline(const ordered_json& c) {
  const bool host_read = !c.contains("copy_GBps");
  return {host_read ? RooflineBandwidth::host_read : RooflineBandwidth::device_copy,
          field<double>(c, host_read ? "read_GBps" : "copy_GBps"), field<double>(c, "peak_GFLOPs"),
          field<std::string>(c, "bandwidth_probe"), host_read ? "" : field<std::string>(c, "peak_probe")};
}

// Each outside form's sealed bytes parsed again (parse_sealed_outside_forms),
// and its predictions checked against its rows.
void parse_outside_forms(const ordered_json& forms, Registration& r) {
  r.outside_forms = parse_sealed_outside_forms(forms, r.grid);
  for (const OutsideForm& form : r.outside_forms) {
    std::vector<CellPrediction> registered;
    for (const CellPrediction& p : r.predictions)
      if (p.form == form.name) registered.push_back(p);
    if (registered != outside_form_predictions(form))
      throw UsageError(fmt::format("registration: the predictions of outside form '{}' are not the rows of its "
                                   "sealed bytes ({})",
                                   form.name, form.source_name));
  }
}

}  // namespace

std::vector<CellPrediction> outside_form_predictions(const OutsideForm& form) {
  std::vector<CellPrediction> predictions;
  for (const OutsidePrediction& row : form.rows)
    predictions.push_back({form.name, row.k, row.batch, row.context,
                           {row.t_step_us, row.terms.value_or(TermShares{row.t_step_us, 0, 0})}});
  return predictions;
}

std::vector<ModelForm> registered_forms(const Registration& registration) {
  return registered_forms(registration.transfer.has_value(), registration.roofline.has_value());
}

std::vector<ModelForm> judged_forms(const Registration& registration) {
  std::vector<ModelForm> forms = registered_forms(registration);
  for (const OutsideForm& form : registration.outside_forms)
    forms.push_back(ModelForm{form.name, form.source_name, nullptr, true});
  return forms;
}

const OutsideForm* find_outside_form(const Registration& registration, std::string_view name) {
  for (const OutsideForm& form : registration.outside_forms)
    if (form.name == name) return &form;
  return nullptr;
}

std::vector<CellPrediction> predict_all(const std::vector<CellInputs>& calibration,
                                        const std::vector<ModelForm>& forms) {
  std::vector<CellPrediction> predictions;
  for (const auto& form : forms)
    for (const auto& cell : calibration)
      predictions.push_back({std::string(form.name), cell.inputs.k, cell.batch, cell.context,
                             form.predict(cell.inputs)});
  return predictions;
}

std::string registration_json(const Registration& r) {
  ordered_json forms = ordered_json::array();
  for (const auto& form : registered_forms(r))
    forms.push_back({{"name", std::string(form.name)}, {"formula", std::string(form.formula)}});
  ordered_json kill = ordered_json::array();
  for (const auto& row : r.kill_switches)
    kill.push_back({{"form", row.form}, {"mape_threshold_pct", row.mape_threshold_pct}});
  ordered_json calibration = ordered_json::array();
  for (const auto& cell : r.calibration) calibration.push_back(inputs_json(cell, r.transfer.has_value(), r.roofline.has_value()));
  ordered_json predictions = ordered_json::array();
  for (const auto& p : r.predictions) predictions.push_back(prediction_json(p));
  ordered_json document = {
      {"registration_version", r.version},
      {"registered_at", r.registered_at},
      {"tool_version", r.tool_version},
      {"question", "Does one decode step under tensor parallelism of degree k cost t_compute(1)/k + allreduce(k)?"},
      {"workload", members_json(r.workload, kWorkloadMembers)},
      {"grid", members_json(r.grid, kGridMembers)},
      {"model_forms", forms},
      {"kill_switches", kill},
      {"falsified_when", r.falsification_rule},
      {"calibration_source", members_json(r.source, kSourceMembers)},
      {"calibration_inputs", calibration},
      {"predictions", predictions},
      {"decision", decision_json(r)}};
  document["decision_rule"] = rounds_design_json(r.design);
  if (r.transfer) document["transfer"] = transfer_source_json(*r.transfer);
  if (r.roofline) document["roofline"] = roofline_json(*r.roofline);
  if (!r.outside_forms.empty()) document["outside_forms"] = outside_forms_json(r.outside_forms);
  if (r.campaign_sha256) document["campaign_sha256"] = *r.campaign_sha256;
  return document.dump(2) + "\n";
}

Registration parse_registration(std::string_view json_text) {
  const ordered_json doc = parse_json_document(json_text, kWhere);
  Registration r;
  r.version = field<int>(doc, "registration_version");
  if (r.version != kRegistrationVersion)
    throw UsageError(fmt::format("registration version {} was sealed under a retired decision rule; this tpbench "
                                 "judges only registration version {}: calibrate and register the study again",
                                 r.version, kRegistrationVersion));
  r.registered_at = field<std::string>(doc, "registered_at");
  r.tool_version = field<std::string>(doc, "tool_version");
  read_members(section(doc, "workload"), kWhere, r.workload, kWorkloadMembers);
  read_members(section(doc, "grid"), kWhere, r.grid, kGridMembers);
  for (const auto& row : section(doc, "kill_switches"))
    r.kill_switches.push_back({field<std::string>(row, "form"), field<double>(row, "mape_threshold_pct")});
  r.falsification_rule = field<std::string>(doc, "falsified_when");
  read_members(section(doc, "calibration_source"), kWhere, r.source, kSourceMembers);
  for (const auto& c : section(doc, "calibration_inputs")) r.calibration.push_back(parse_cell_inputs(c));
  for (const auto& p : section(doc, "predictions")) r.predictions.push_back(parse_prediction(p));
  // Registrations sealed before the decision existed carry none.
  if (doc.contains("decision")) parse_decision(doc.at("decision"), r);
  r.design = parse_rounds_design(section(doc, "decision_rule"));
  // Only a study that registered `transfer` carries A's calibration.
  if (doc.contains("transfer")) r.transfer = parse_transfer_source(doc.at("transfer"));
  // Only a study whose calibration measured the ceilings registers `roofline`.
  if (doc.contains("roofline")) r.roofline = parse_roofline(doc.at("roofline"));
  // Only a study that registered --form carries outside forms.
  if (doc.contains("outside_forms")) parse_outside_forms(doc.at("outside_forms"), r);
  // Only a campaign's launch carries its campaign's digest.
  if (doc.contains("campaign_sha256")) r.campaign_sha256 = field<std::string>(doc, "campaign_sha256");
  return r;
}

const CellPrediction& find_prediction(const std::vector<CellPrediction>& predictions, std::string_view form, int k,
                                      int batch, int context) {
  for (const auto& p : predictions)
    if (p.form == form && p.k == k && p.batch == batch && p.context == context) return p;
  throw_error("tpbench", 1,
              fmt::format("no registered prediction for form {} at k={} b={} c={}", form, k, batch, context), __FILE__,
              __LINE__);
}

const CellInputs& find_cell_inputs(const Registration& registration, int k, int batch, int context) {
  for (const auto& cell : registration.calibration)
    if (cell.inputs.k == k && cell.batch == batch && cell.context == context) return cell;
  throw_error("tpbench", 1, fmt::format("no calibration inputs registered for k={} b={} c={}", k, batch, context),
              __FILE__, __LINE__);
}

}  // namespace tpb
