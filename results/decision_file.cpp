#include "results/decision_file.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "results/h5_check.hpp"
#include "results/layout.hpp"

namespace tpb {
namespace {

void write_optional(hid_t object, const char* name, const std::optional<double>& value) {
  if (value) write_attribute(object, name, *value);
}

std::optional<double> read_optional(hid_t object, const char* name) {
  if (!has_attribute(object, name)) return std::nullopt;
  return read_double_attribute(object, name);
}

std::string read_string_or_empty(hid_t object, const char* name) {
  return has_attribute(object, name) ? read_string_attribute(object, name) : std::string();
}

BatchSource batch_source_from(const std::string& text) {
  if (text == "interpolated") return BatchSource::interpolated;
  if (text == "extrapolated") return BatchSource::extrapolated;
  return BatchSource::measured;
}

void write_row(H5File& file, const DecisionRow& r) {
  H5Handle g = file.group(decision_row_path(r.k, r.batch, r.context));
  const hid_t id = g.id();
  write_attributes(id, {{"batch", r.batch}, {"context", r.context}, {"at_max_batch", r.at_max_batch},
                        {"label", std::string(r.measured() ? "measured" : "MODELLED")}});
  if (!r.note.empty()) write_attribute(id, "note", r.note);
  if (!r.run) return;
  write_attributes(id, {{"batch_source", std::string(to_string(r.run->source))},
                        {"line_from_batch", r.run->line_from_batch}, {"line_to_batch", r.run->line_to_batch},
                        {"t_step_run_us", r.run->value}, {"t_step_run_high_us", r.run_high_us}});
  if (!r.full_us) return;
  write_attributes(id, {{"t_step_us", *r.full_us}, {"t_step_high_us", *r.full_high_us}, {"tpot_ms", *r.tpot_ms()},
                        {"tokens_per_s_per_device", *r.tokens_per_s_per_device()},
                        {"compute_us", r.full_terms.compute_us}, {"collective_us", r.full_terms.collective_us},
                        {"host_us", r.full_terms.host_us}});
  if (!r.form.empty()) write_attribute(id, "form", r.form);
  write_optional(id, "error_ci_high_pct", r.error_ci_high_pct);
}

DecisionRow read_row(const H5File& file, int k, const std::string& path, bool degree_measured) {
  H5Handle g = file.open_object(path);
  const hid_t id = g.id();
  DecisionRow r;
  r.k = k;
  r.modelled_degree = !degree_measured;
  r.batch = read_integer_attribute(id, "batch");
  r.context = static_cast<int>(read_integer_attribute(id, "context"));
  r.at_max_batch = read_integer_attribute(id, "at_max_batch") != 0;
  r.note = read_string_or_empty(id, "note");
  if (has_attribute(id, "t_step_run_us")) {
    r.run = BatchEstimate{read_double_attribute(id, "t_step_run_us"),
                          batch_source_from(read_string_attribute(id, "batch_source")),
                          static_cast<int>(read_integer_attribute(id, "line_from_batch")),
                          static_cast<int>(read_integer_attribute(id, "line_to_batch"))};
    r.run_high_us = read_double_attribute(id, "t_step_run_high_us");
  }
  r.full_us = read_optional(id, "t_step_us");
  r.full_high_us = read_optional(id, "t_step_high_us");
  if (r.full_us)
    r.full_terms = {read_double_attribute(id, "compute_us"), read_double_attribute(id, "collective_us"),
                    read_double_attribute(id, "host_us")};
  r.form = read_string_or_empty(id, "form");
  r.error_ci_high_pct = read_optional(id, "error_ci_high_pct");
  return r;
}

}  // namespace

void write_decision_declaration(H5File& file, const DecisionDeclaration& declaration) {
  H5Handle study = file.group(kStudyGroup);
  write_optional(study.id(), "tpot_slo_ms", declaration.tpot_slo_ms);
  if (declaration.predict_tp.empty()) return;
  write_attribute(study.id(), "predict_tp",
                  std::vector<double>(declaration.predict_tp.begin(), declaration.predict_tp.end()));
}

DecisionDeclaration read_decision_declaration(const H5File& file) {
  DecisionDeclaration declaration;
  H5Handle study = file.open_object(kStudyGroup);
  declaration.tpot_slo_ms = read_optional(study.id(), "tpot_slo_ms");
  if (has_attribute(study.id(), "predict_tp"))
    for (double k : read_double_list_attribute(study.id(), "predict_tp")) declaration.predict_tp.push_back(static_cast<int>(k));
  return declaration;
}

void write_decision(H5File& file, const DeploymentDecision& d) {
  if (file.exists(kDecisionGroup)) H5_CHECK(H5Ldelete(file.id(), kDecisionGroup, H5P_DEFAULT));
  {
    H5Handle root = file.group(kDecisionGroup);
    write_attributes(root.id(), {{"layers_run", d.layers_run}, {"layers_full", d.layers_full},
                                 {"budget_bytes", d.budget_bytes}, {"budget_source", d.budget_source},
                                 {"reserve_pct", d.reserve_pct}});
    write_optional(root.id(), "tpot_slo_ms", d.tpot_slo_ms);
  }
  for (const auto& degree : d.degrees) {
    const std::string path = decision_degree_path(degree.k);
    {
      H5Handle g = file.group(path);
      write_attributes(g.id(), {{"k", degree.k}, {"measured", degree.measured}});
      if (!degree.collective_model.empty()) write_attribute(g.id(), "collective_model", degree.collective_model);
      write_attributes(g.id(), {{"fits", degree.capacity.fits}, {"kv_bytes_per_token", degree.kv_bytes_per_token}});
      if (degree.capacity.fits) write_attribute(g.id(), "kv_tokens_per_device", degree.capacity.kv_tokens_per_device);
      if (!degree.form.empty()) write_attribute(g.id(), "form", degree.form);
      write_optional(g.id(), "error_ci_high_pct", degree.error_ci_high_pct);
      if (!degree.no_model_reason.empty()) write_attribute(g.id(), "no_model_reason", degree.no_model_reason);
    }
    const std::vector<std::int64_t> contexts(degree.contexts.begin(), degree.contexts.end());
    file.write_dataset(path + "/contexts", contexts, {contexts.size()});
    file.write_dataset(path + "/max_batch", degree.max_batch, {degree.max_batch.size()});
    for (const auto& row : degree.rows) write_row(file, row);
  }
  for (const auto& c : d.choices) {
    H5Handle g = file.group(decision_choice_path(c.context));
    write_attribute(g.id(), "context", std::int64_t{c.context});
    write_attribute(g.id(), "reason", c.reason);
    if (!c.row) continue;
    write_attributes(g.id(), {{"k", c.row->k}, {"batch", c.row->batch}, {"tpot_ms", *c.row->tpot_ms()},
                              {"tokens_per_s_per_device", *c.row->tokens_per_s_per_device()},
                              {"label", std::string(c.row->measured() ? "measured" : "MODELLED")},
                              {"prediction", c.prediction}, {"bottleneck", c.bottleneck}});
  }
  file.flush();
}

bool has_decision(const H5File& file) { return file.exists(kDecisionGroup); }

DeploymentDecision read_decision(const H5File& file) {
  DeploymentDecision d;
  {
    H5Handle root = file.open_object(kDecisionGroup);
    d.layers_run = static_cast<int>(read_integer_attribute(root.id(), "layers_run"));
    d.layers_full = static_cast<int>(read_integer_attribute(root.id(), "layers_full"));
    d.budget_bytes = read_integer_attribute(root.id(), "budget_bytes");
    d.budget_source = read_string_attribute(root.id(), "budget_source");
    d.reserve_pct = read_double_attribute(root.id(), "reserve_pct");
    d.tpot_slo_ms = read_optional(root.id(), "tpot_slo_ms");
  }
  std::vector<int> ks;
  for (const auto& name : file.list(kDecisionGroup))
    if (name.size() > 1 && name[0] == 'k') ks.push_back(std::stoi(name.substr(1)));
  std::sort(ks.begin(), ks.end());
  for (int k : ks) {
    DegreeDecision degree;
    degree.k = k;
    const std::string path = decision_degree_path(k);
    {
      H5Handle g = file.open_object(path);
      degree.capacity.fits = read_integer_attribute(g.id(), "fits") != 0;
      degree.kv_bytes_per_token = read_integer_attribute(g.id(), "kv_bytes_per_token");
      degree.measured = read_integer_attribute(g.id(), "measured") != 0;
      degree.collective_model = read_string_or_empty(g.id(), "collective_model");
      if (degree.capacity.fits) degree.capacity.kv_tokens_per_device = read_integer_attribute(g.id(), "kv_tokens_per_device");
      degree.form = read_string_or_empty(g.id(), "form");
      degree.error_ci_high_pct = read_optional(g.id(), "error_ci_high_pct");
      degree.no_model_reason = read_string_or_empty(g.id(), "no_model_reason");
    }
    for (std::int64_t c : file.read_integers(path + "/contexts")) degree.contexts.push_back(static_cast<int>(c));
    degree.max_batch = file.read_integers(path + "/max_batch");
    for (std::size_t i = 0; i < degree.contexts.size(); ++i) {
      // Rows in the order written: grid batches ascending, the maximum last.
      std::vector<DecisionRow> rows;
      for (const auto& name : file.list(path))
        if (name.rfind('b', 0) == 0 && name.ends_with(fmt::format("_c{}", degree.contexts[i])))
          rows.push_back(read_row(file, k, path + "/" + name, degree.measured));
      std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.batch < b.batch; });
      degree.rows.insert(degree.rows.end(), rows.begin(), rows.end());
    }
    d.degrees.push_back(degree);
  }
  if (file.exists(std::string(kDecisionGroup) + "/slo"))
    for (const auto& name : file.list(std::string(kDecisionGroup) + "/slo")) {
      const int context = std::stoi(name.substr(1));
      SloChoice choice;
      choice.context = context;
      H5Handle g = file.open_object(decision_choice_path(context));
      choice.reason = read_string_attribute(g.id(), "reason");
      if (has_attribute(g.id(), "k")) {
        const int k = static_cast<int>(read_integer_attribute(g.id(), "k"));
        const bool measured = read_integer_attribute(file.open_object(decision_degree_path(k)).id(), "measured") != 0;
        choice.row = read_row(file, k, decision_row_path(k, read_integer_attribute(g.id(), "batch"), context), measured);
        choice.prediction = read_string_attribute(g.id(), "prediction");
        choice.bottleneck = read_string_attribute(g.id(), "bottleneck");
      }
      d.choices.push_back(choice);
    }
  return d;
}

}  // namespace tpb
