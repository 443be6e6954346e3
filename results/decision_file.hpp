#pragma once
// The study's decision in the results file, under /decision:
//   /decision                 attributes layers_run, layers_full, budget_bytes, budget_source, reserve_pct,
//                             tpot_slo_ms (only under --tpot-slo)
//   /decision/k{K}            attributes k, measured (0 for a --predict-tp degree, with collective_model),
//                             kv_bytes_per_token (per device), fits, kv_tokens_per_device (when it fits), form and
//                             error_ci_high_pct (when layers are scaled by a form), no_model_reason;
//                             datasets contexts and max_batch (the largest admissible batch per context)
//   /decision/k{K}/b{B}_c{C}  one row: batch, context, at_max_batch, label (measured | MODELLED),
//                             batch_source, line_from_batch, line_to_batch, t_step_run_us, t_step_run_high_us;
//                             when the full model has a figure: t_step_us, t_step_high_us, tpot_ms,
//                             tokens_per_s_per_device, compute_us, collective_us, host_us (and form,
//                             error_ci_high_pct when MODELLED in layers); note when a figure is absent
//   /decision/slo/c{C}        under --tpot-slo: context, and when a k was chosen k, batch, tpot_ms,
//                             tokens_per_s_per_device, label, prediction, bottleneck; reason
// A figure that could not be given is an absent attribute, never 0 or NaN.
#include <string>

#include "predictor/deployment_decision.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// The decision's declaration (--tpot-slo, --predict-tp) as /study attributes
// tpot_slo_ms and predict_tp, written at calibration (absent when not declared).
void write_decision_declaration(H5File& file, const DecisionDeclaration& declaration);
DecisionDeclaration read_decision_declaration(const H5File& file);

// Replaces any /decision already in the file.
void write_decision(H5File& file, const DeploymentDecision& decision);
bool has_decision(const H5File& file);
DeploymentDecision read_decision(const H5File& file);

}  // namespace tpb
