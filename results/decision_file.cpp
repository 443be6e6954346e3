#include "results/decision_file.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "results/attribute_fields.hpp"
#include "results/h5_check.hpp"
#include "results/layout.hpp"

namespace tpb {
namespace {

// /decision
constexpr auto kDecisionFields = [](auto& f, auto& d) {
  f("layers_run", d.layers_run);
  f("layers_full", d.layers_full);
  f("budget_bytes", d.budget_bytes);
  f("budget_source", d.budget_source);
  f("reserve_pct", d.reserve_pct);
  f("tpot_slo_ms", d.tpot_slo_ms);
};
// /decision/k{K}
constexpr auto kDegreeFields = [](auto& f, auto& g) {
  f("k", g.k);
  f("measured", g.measured);
  f.unless_empty("collective_model", g.collective_model);
  f("fits", g.capacity.fits);
  f("kv_bytes_per_token", g.kv_bytes_per_token);
  if (g.capacity.fits) f("kv_tokens_per_device", g.capacity.kv_tokens_per_device);
  f.unless_empty("form", g.form);
  f("error_ci_high_pct", g.error_ci_high_pct);
  f.unless_empty("no_model_reason", g.no_model_reason);
};
// /decision/k{K}/b{B}_c{C}: the row, its figure at the layers that ran
// (when it has one), and the full model's (when it has one).
constexpr auto kRowFields = [](auto& f, auto& r) {
  f("batch", r.batch);
  f("context", r.context);
  f("at_max_batch", r.at_max_batch);
  f.unless_empty("note", r.note);
};
constexpr auto kRunFields = [](auto& f, auto& run) {
  f("line_from_batch", run.line_from_batch);
  f("line_to_batch", run.line_to_batch);
  f("t_step_run_us", run.value);
};
constexpr auto kFullFields = [](auto& f, auto& r) {
  f("t_step_us", r.full_us);
  f("t_step_high_us", r.full_high_us);
  if (!r.full_us) return;
  f("compute_us", r.full_terms.compute_us);
  f("collective_us", r.full_terms.collective_us);
  f("host_us", r.full_terms.host_us);
  f.unless_empty("form", r.form);
  f("error_ci_high_pct", r.error_ci_high_pct);
};
// The decision's declaration on /study.
constexpr auto kDeclarationFields = [](auto& f, auto& d) {
  f("tpot_slo_ms", d.tpot_slo_ms);
  f.unless_empty("predict_tp", d.predict_tp);
};

std::string label_of(const DecisionRow& r) { return r.measured() ? "measured" : "MODELLED"; }

BatchSource batch_source_from(const std::string& text) {
  if (text == "interpolated") return BatchSource::interpolated;
  if (text == "extrapolated") return BatchSource::extrapolated;
  return BatchSource::measured;
}

void write_row(H5File& file, const DecisionRow& r) {
  H5Handle g = file.group(decision_row_path(r.k, r.batch, r.context));
  write_fields(g.id(), r, kRowFields);
  write_attribute(g.id(), "label", label_of(r));
  if (!r.run) return;
  write_fields(g.id(), *r.run, kRunFields);
  write_attributes(g.id(), {{"batch_source", std::string(to_string(r.run->source))},
                            {"t_step_run_high_us", r.run_high_us}});
  if (!r.full_us) return;
  write_fields(g.id(), r, kFullFields);
  write_attributes(g.id(), {{"tpot_ms", *r.tpot_ms()}, {"tokens_per_s_per_device", *r.tokens_per_s_per_device()}});
}

DecisionRow read_row(const H5File& file, int k, const std::string& path, bool degree_measured) {
  H5Handle g = file.open_object(path);
  DecisionRow r = read_fields<DecisionRow>(g.id(), kRowFields);
  r.k = k;
  r.modelled_degree = !degree_measured;
  if (has_attribute(g.id(), "t_step_run_us")) {
    r.run = read_fields(g.id(), kRunFields,
                        BatchEstimate{.source = batch_source_from(read_string_attribute(g.id(), "batch_source"))});
    r.run_high_us = read_double_attribute(g.id(), "t_step_run_high_us");
  }
  return read_fields(g.id(), kFullFields, r);
}

}  // namespace

void write_decision_declaration(H5File& file, const DecisionDeclaration& declaration) {
  H5Handle study = file.group(kStudyGroup);
  write_fields(study.id(), declaration, kDeclarationFields);
}

DecisionDeclaration read_decision_declaration(const H5File& file) {
  H5Handle study = file.open_object(kStudyGroup);
  return read_fields<DecisionDeclaration>(study.id(), kDeclarationFields);
}

void write_decision(H5File& file, const DeploymentDecision& d) {
  if (file.exists(kDecisionGroup)) H5_CHECK(H5Ldelete(file.id(), kDecisionGroup, H5P_DEFAULT));
  write_fields(file.group(kDecisionGroup).id(), d, kDecisionFields);
  for (const auto& degree : d.degrees) {
    const std::string path = decision_degree_path(degree.k);
    write_fields(file.group(path).id(), degree, kDegreeFields);
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
                              {"label", label_of(*c.row)}, {"prediction", c.prediction},
                              {"bottleneck", c.bottleneck}});
  }
  file.flush();
}

bool has_decision(const H5File& file) { return file.exists(kDecisionGroup); }

DeploymentDecision read_decision(const H5File& file) {
  DeploymentDecision d = read_fields<DeploymentDecision>(file.open_object(kDecisionGroup).id(), kDecisionFields);
  std::vector<int> ks;
  for (const auto& name : file.list(kDecisionGroup))
    if (name.size() > 1 && name[0] == 'k') ks.push_back(std::stoi(name.substr(1)));
  std::sort(ks.begin(), ks.end());
  for (int k : ks) {
    const std::string path = decision_degree_path(k);
    DegreeDecision degree = read_fields<DegreeDecision>(file.open_object(path).id(), kDegreeFields);
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
