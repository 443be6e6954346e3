#pragma once
// The TP composition models. Each form is one small function from calibrated
// inputs to a predicted t_step, split into the terms it assumes; the table in
// model_forms() lists them. A new form is a new function and a new row: no
// other form changes, and no form is tuned after registration.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpb {

// Everything a form may use for one cell (k, b, c); all of it measured during
// calibration, before any TP-k step runs.
struct FormInputs {
  int k = 1;                   // TP degree
  double t_compute1_us = 0;    // t_compute(1): TP-1 step with collectives ablated (--no-comm), median
  double t_host_us = 0;        // t_host(k): host issue time of the TP-k shard replay, median
  double t_replay_us = 0;      // t_compute of the TP-k shard shapes on one device (shard replay), median
  int n_ar = 0;                // all-reduces per step (2 per layer)
  double t_ar_sweep_us = 0;    // t_ar_sweep(k, ar_bytes): the all-reduce fit evaluated at ar_bytes
  int n_ag = 0;                // all-gathers per step (the LM head's logits)
  double t_ag_sweep_us = 0;    // standalone all-gather time at the logits' size, k ranks
  // `transfer` only: the compute of the TP-k shard priced by another model's
  // fitted phase costs (mpi_bench/pipeline/transfer_calibration.hpp). Sealed: no round re-measures it.
  double t_transfer_us = 0;
  // `roofline` only: the TP-k shard's phases, each priced at max(bytes read
  // and written / read bandwidth, flops / compute peak), the ceilings measured
  // at calibration (mpi_bench/pipeline/roofline_calibration.hpp). Sealed.
  double t_roofline_us = 0;
};

// The terms a form assumes, in µs; they add up to its predicted t_step.
struct TermShares {
  double compute_us = 0;      // device compute
  double collective_us = 0;   // time in all-reduce/all-gather calls
  double host_us = 0;         // host issue time not hidden behind compute
  double total_us() const { return compute_us + collective_us + host_us; }
  bool operator==(const TermShares&) const = default;
};

struct Prediction {
  double t_step_us = 0;
  TermShares terms;
  bool operator==(const Prediction&) const = default;
};

// The collective term every form shares: n_ar · t_ar_sweep(k, ar_bytes) + n_ag · t_ag.
double collective_term_us(const FormInputs& in);

Prediction predict_ideal(const FormInputs& in);       // t_compute(1)/k + collectives
Prediction predict_host_floor(const FormInputs& in);  // ideal + t_host(k)
Prediction predict_max_form(const FormInputs& in);    // max(t_host(k), t_compute(1)/k) + collectives
Prediction predict_replay(const FormInputs& in);      // t_replay(k) + collectives
// The negative control: k ranks take as long as one, plus the collectives.
// Registered like every form; it must come out FALSIFIED at every k > 1, or
// the study cannot tell a speedup from none at that k.
Prediction predict_no_speedup(const FormInputs& in);  // t_compute(1) + collectives
// Calibrated on another model A: B's TP-k shard priced by A's fitted phase
// costs, plus B's own collective terms. Registered only when asked for.
Prediction predict_transfer(const FormInputs& in);    // t_transfer(k) + collectives
// An analytic calculator's answer, as llm-analysis, LLM-Viewer or GenZ give
// it: the ledger's phases at the machine's measured ceilings, plus the
// collectives. Registered when the calibration measured the ceilings.
Prediction predict_roofline(const FormInputs& in);    // t_roofline(k) + collectives

struct ModelForm {
  std::string_view name;     // as in reports, HDF5 and predictions.json
  std::string_view formula;  // the equation, for the report and the registration
  Prediction (*predict)(const FormInputs&);
  // Its prediction is fixed for the launch (nothing it reads is re-measured
  // per round): judged on the sealed prediction at the launch's level
  // (judge_absolute_cell), not on the round's anchors.
  bool absolute = false;
};

// The forms every study registers, in report order.
std::span<const ModelForm> model_forms();
// What one registration holds: model_forms(), then `transfer` and `roofline`
// when registered (`transfer` when a study names another model's calibration,
// register --transfer-from).
std::vector<ModelForm> registered_forms(bool with_transfer, bool with_roofline = false);

}  // namespace tpb
