#include "mpi_bench/pipeline/decision_stage.hpp"

#include <algorithm>

#include "mpi_bench/pipeline/stages.hpp"
#include "results/custody.hpp"
#include "results/decision_file.hpp"
#include "results/form_standings.hpp"
#include "results/layout.hpp"
#include "results/study_file.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/phase_ledger.hpp"

namespace tpb {
namespace {

// The model as published (every layer), from the config text stored in /config.
ModelConfig full_model(const H5File& file, const std::string& name) {
  H5Handle config = file.open_object(kConfigGroup);
  return parse_model_config(read_string_attribute(config.id(), "json"), name);
}

// A deployment holds one TP group of the study's collective.
DecisionDegree degree_inputs(const ModelConfig& full, BackendKind backend, CollectiveKind collective, int k,
                             int layers_run, int batch, bool measured) {
  const MemorySetup setup{backend, collective, backend_memory_types(backend), k, false, k > 1};
  DecisionDegree d;
  d.k = k;
  d.measured = measured;
  d.line = ledger_line(memory_terms(full, setup));
  // Weight bytes one layer adds to what a step reads, and the LM head's
  // shard, read once per step: what the compute term scales by. A sparse
  // layer reads only the experts it routes to: at most batch × top-k of them
  // (the grid's largest batch), where it holds every expert.
  const int experts = full.is_moe() ? std::min(full.moe.num_experts, batch * full.moe.experts_per_token) : 0;
  const auto ledger = [&](int layers) {
    return phase_ledger(with_layers(full, layers), k, batch, 0, setup.types, false,
                        std::vector<int>(full.is_moe() ? static_cast<std::size_t>(layers) : 0, experts));
  };
  const PhaseLedger one_layer = ledger(1);
  const double layer_bytes =
      static_cast<double>(ledger(2).weight_bytes_per_step() - one_layer.weight_bytes_per_step());
  const double lm_head_bytes = static_cast<double>(one_layer[Phase::lm_head].weight_bytes_read);
  d.layers = layer_scaling(layers_run, full.num_layers, layer_bytes, lm_head_bytes);
  return d;
}

}  // namespace

std::optional<MemoryBudget> read_study_budget(const H5File& file) {
  if (!file.exists(kStudyGroup)) return std::nullopt;
  const StudyDesign design = read_study_design(file);
  if (!design.memory_budget_bytes) return std::nullopt;
  return MemoryBudget{*design.memory_budget_bytes, design.memory_budget_source};
}

DeploymentDecision decision_stage(H5File& file, const MemoryBudget& budget) {
  DecisionQuestion q;
  q.registration = checked_registration(file);
  q.measured = read_measured_cells(file, q.registration.grid);
  q.standings = read_form_standings(file, q.registration.grid);
  q.budget_bytes = budget.bytes;
  q.budget_source = budget.source;
  q.reserve_pct = kDecisionReservePct;
  q.tpot_slo_ms = q.registration.decision.tpot_slo_ms;
  const ModelConfig full = full_model(file, q.registration.workload.model);
  const BackendKind backend = parse_backend_kind("study backend", q.registration.workload.backend);
  const CollectiveKind collective = stored_study_collective(read_study_design(file), backend);
  const int layers_run = q.registration.workload.layers;
  const int batch = *std::max_element(q.registration.grid.batch.begin(), q.registration.grid.batch.end());
  for (int k : q.registration.grid.tp)
    q.degrees.push_back(degree_inputs(full, backend, collective, k, layers_run, batch, true));
  for (const auto& m : q.registration.modelled_degrees)
    q.degrees.push_back(degree_inputs(full, backend, collective, m.k, layers_run, batch, false));
  const DeploymentDecision decision = decide_deployment(q);
  write_decision(file, decision);
  return decision;
}

}  // namespace tpb
