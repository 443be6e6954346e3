#pragma once
// The study's decision: for each TP degree, the largest batch the memory
// budget admits for the full model at each context, the step time there
// (measured at the grid's batches, MODELLED in batch between or beyond them
// and in layers beyond those that ran), TPOT and tokens/s per device; under a
// TPOT SLO, the degree serving the most tokens/s per device, the prediction
// that choice rests on and the next bottleneck. Pure arithmetic on plain
// records: the caller supplies the memory lines (from the estimator), the
// measured cells, the registration and the verdicts' standings.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "predictor/kv_ledger.hpp"
#include "predictor/registration.hpp"
#include "predictor/statistics.hpp"
#include "predictor/study_evaluation.hpp"

namespace tpb {

// Where one (form, k) stands after the verdict. The bound is the upper end of
// the interval of the form's error (percent); absent in a file whose verdict
// did not state one.
struct FormStanding {
  std::string form;
  int k = 1;
  std::string verdict;  // HOLDS, FALSIFIED, INCONCLUSIVE or NOT_APPLICABLE
  std::optional<double> error_ci_high_pct;
};

// The composition form a MODELLED figure at degree k uses: one that HOLDS at
// k with the smallest stated upper error bound (ties: the earlier entry).
// nullopt when no form HOLDS there with a bound: then no modelled figure.
std::optional<FormStanding> form_for_modelled_figures(const std::vector<FormStanding>& standings, int k);

// For a degree not measured: the form that HOLDS with a bound at every
// measured k > 1, with the smallest of its largest bounds (the one returned).
std::optional<FormStanding> form_for_unmeasured_degree(const std::vector<FormStanding>& standings,
                                                       const std::vector<int>& measured_tp);

// A figure at any batch from figures at the grid's batches.
enum class BatchSource { measured, interpolated, extrapolated };
const char* to_string(BatchSource source);  // "measured", "interpolated", "extrapolated"

struct BatchEstimate {
  double value = 0;
  BatchSource source = BatchSource::measured;
  int line_from_batch = 0;  // the two grid batches the line passes through (modelled only)
  int line_to_batch = 0;
};

// `points`: (batch, value) at distinct grid batches, in any order. At a grid
// batch, its value. Between two, the straight line through its neighbours;
// outside the grid, the line through the two nearest (the form the decision
// uses in batch: t_step linear in b, the collective and weight reads fixed,
// the per-sequence work growing with b). nullopt when the grid has one batch
// and `batch` is not it, or when an extrapolating line falls with b (a
// decreasing step time is noise, not a trend to extend).
std::optional<BatchEstimate> estimate_in_batch(std::span<const std::pair<int, double>> points, std::int64_t batch);

// From the layers that ran to the full model. Per-layer terms scale with the
// layer count; the compute term, which also holds once-per-step work (the LM
// head), scales by the share of weight bytes it reads per step:
//   compute_factor = (layers_full · layer_bytes + once_bytes) / (layers_run · layer_bytes + once_bytes).
struct LayerScaling {
  int layers_run = 1;
  int layers_full = 1;
  double compute_factor = 1;
  double layer_ratio() const { return static_cast<double>(layers_full) / layers_run; }
  bool scaled() const { return layers_full != layers_run; }
};
LayerScaling layer_scaling(int layers_run, int layers_full, double layer_weight_bytes, double once_weight_bytes);

// What the layers that did not run add to a step, in a form's terms at one
// cell: (compute_factor − 1) · compute + (layer_ratio − 1) · (n_ar · t_ar_sweep + host).
// The all-gather of the logits happens once per step and is not scaled.
double missing_layers_us(const TermShares& form_terms, double all_reduce_term_us, const LayerScaling& scaling);

// One TP degree of the study, with what its devices hold for the full model.
struct DecisionDegree {
  int k = 1;
  bool measured = true;  // false: a --predict-tp degree, every figure from its registered predictions
  DeviceMemoryLine line;  // the full model's line at k (memory_estimate → ledger_line)
  LayerScaling layers;
};

struct DecisionQuestion {
  Registration registration;            // grid, calibration and predictions
  std::vector<MeasuredCell> measured;   // every grid cell
  std::vector<FormStanding> standings;  // from the verdict
  std::vector<DecisionDegree> degrees;  // the grid's k, then the --predict-tp degrees
  std::int64_t budget_bytes = 0;        // per device
  std::string budget_source;
  double reserve_pct = 0;
  std::optional<double> tpot_slo_ms;
};

// One (k, batch, context) of the decision.
struct DecisionRow {
  int k = 1;
  std::int64_t batch = 0;
  int context = 0;
  bool at_max_batch = false;
  bool modelled_degree = false;  // a degree not measured: MODELLED whatever else holds
  std::optional<BatchEstimate> run;  // t_step at the layers that ran (µs), measured or modelled in batch
  double run_high_us = 0;        // its upper side: the CI high of the median (same line when modelled)
  // The full model (all layers). Equal to `run` when every layer ran;
  // otherwise MODELLED with `form`, and absent when no form HOLDS.
  std::optional<double> full_us;
  std::optional<double> full_high_us;  // what missing_layers_us adds, widened by the form's bound
  std::string form;                    // composition form used for the layers; empty when none needed
  std::optional<double> error_ci_high_pct;
  TermShares full_terms;               // compute / collective / host of the full step, for the bottleneck
  std::string note;                    // why a figure is absent

  bool measured() const {
    return !modelled_degree && run && run->source == BatchSource::measured && form.empty();
  }
  std::optional<double> tpot_ms() const;
  std::optional<double> tokens_per_s_per_device() const;
};

struct DegreeDecision {
  int k = 1;
  bool measured = true;
  std::string collective_model;         // a degree not measured: how its collective terms were obtained
  DeviceCapacity capacity;
  std::int64_t kv_bytes_per_token = 0;  // per device, as allocated
  std::vector<int> contexts;
  std::vector<std::int64_t> max_batch;  // per context: the largest admissible batch, 0 when none fits
  std::string form;                     // the composition form for layer scaling, empty when unused or none
  std::optional<double> error_ci_high_pct;
  std::string no_model_reason;          // when the layers need a form and none HOLDS
  std::vector<DecisionRow> rows;        // per context: grid batches up to the max, then the max
};

// Under --tpot-slo, per context: the k with the most tokens/s per device whose
// TPOT upper side stays within the SLO.
struct SloChoice {
  int context = 0;
  std::optional<DecisionRow> row;
  std::string prediction;  // the falsifiable statement the choice rests on
  std::string bottleneck;  // "memory capacity", "compute", "collective" or "host"
  std::string reason;      // why that bottleneck, or why nothing was chosen
};

struct DeploymentDecision {
  int layers_run = 0;
  int layers_full = 0;
  std::int64_t budget_bytes = 0;
  std::string budget_source;  // where the budget came from, in words
  double reserve_pct = 0;
  std::optional<double> tpot_slo_ms;
  std::vector<DegreeDecision> degrees;
  std::vector<SloChoice> choices;
};

DeploymentDecision decide_deployment(const DecisionQuestion& question);

}  // namespace tpb
