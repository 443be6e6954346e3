#include "predictor/model_forms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "common/error.hpp"

namespace tpb {
namespace {

double compute_share_us(const FormInputs& in) {
  TPB_CHECK(in.k >= 1, fmt::format("TP degree {} < 1", in.k));
  return in.t_compute1_us / in.k;
}

constexpr std::array kForms{
    ModelForm{"ideal", "t_compute(1)/k + n_ar*t_ar_sweep(k, ar_bytes) + n_ag*t_ag_sweep(k, ag_bytes)",
              predict_ideal},
    ModelForm{"host_floor", "ideal + t_host(k)", predict_host_floor},
    ModelForm{"max_form", "max(t_host(k), t_compute(1)/k) + n_ar*t_ar_sweep(k, ar_bytes) + n_ag*t_ag_sweep(k, ag_bytes)",
              predict_max_form},
    ModelForm{"replay", "t_replay(k) + n_ar*t_ar_sweep(k, ar_bytes) + n_ag*t_ag_sweep(k, ag_bytes)", predict_replay},
    ModelForm{"no_speedup", "t_compute(1) + n_ar*t_ar_sweep(k, ar_bytes) + n_ag*t_ag_sweep(k, ag_bytes)",
              predict_no_speedup},
};

constexpr ModelForm kTransfer{"transfer", "t_transfer(k) + n_ar*t_ar_sweep(k, ar_bytes) + n_ag*t_ag_sweep(k, ag_bytes)",
                              predict_transfer, true};
// bandwidth: the ceiling the registration sealed under "roofline", host read
// bandwidth on CPU, device-to-device copy bandwidth on CUDA.
constexpr ModelForm kRoofline{"roofline",
                              "sum over phases of max(bytes/bandwidth, flops/peak_GFLOPs) + n_ar*t_ar_sweep(k, ar_bytes) "
                              "+ n_ag*t_ag_sweep(k, ag_bytes)",
                              predict_roofline, true};

Prediction from_terms(const TermShares& terms) { return {terms.total_us(), terms}; }

// A form with no host term: `compute_us` plus the collectives every form shares.
Prediction compute_plus_collectives(const FormInputs& in, double compute_us) {
  return from_terms({.compute_us = compute_us, .collective_us = collective_term_us(in), .host_us = 0});
}

}  // namespace

double collective_term_us(const FormInputs& in) { return in.n_ar * in.t_ar_sweep_us + in.n_ag * in.t_ag_sweep_us; }

Prediction predict_ideal(const FormInputs& in) { return compute_plus_collectives(in, compute_share_us(in)); }

Prediction predict_host_floor(const FormInputs& in) {
  return from_terms(
      {.compute_us = compute_share_us(in), .collective_us = collective_term_us(in), .host_us = in.t_host_us});
}

Prediction predict_max_form(const FormInputs& in) {
  // The host term counts only where it exceeds the compute it overlaps.
  const double compute = compute_share_us(in);
  return from_terms({.compute_us = compute,
                     .collective_us = collective_term_us(in),
                     .host_us = std::max(0.0, in.t_host_us - compute)});
}

Prediction predict_replay(const FormInputs& in) { return compute_plus_collectives(in, in.t_replay_us); }

Prediction predict_no_speedup(const FormInputs& in) { return compute_plus_collectives(in, in.t_compute1_us); }

Prediction predict_transfer(const FormInputs& in) { return compute_plus_collectives(in, in.t_transfer_us); }

Prediction predict_roofline(const FormInputs& in) { return compute_plus_collectives(in, in.t_roofline_us); }

std::span<const ModelForm> model_forms() { return kForms; }

std::vector<ModelForm> registered_forms(bool with_transfer, bool with_roofline) {
  std::vector<ModelForm> forms(kForms.begin(), kForms.end());
  if (with_transfer) forms.push_back(kTransfer);
  if (with_roofline) forms.push_back(kRoofline);
  return forms;
}

}  // namespace tpb
