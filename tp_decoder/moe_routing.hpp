#pragma once
// Routing of a mixture-of-experts layer, decided on the host from the router
// logits (Hugging Face's MixtralSparseMoeBlock / Qwen2MoeSparseMoeBlock):
// softmax over every expert, the experts_per_token most probable kept, their
// weights renormalised to sum to 1 when norm_topk_prob. A tie goes to the
// lowest expert index, so equal logits route alike on every rank and degree.
//
// The router weight is replicated and its input is the residual stream after
// the attention all-reduce, identical on every rank of a group, so each rank
// computing the routing alike is what keeps the sharded expert sums
// meaningful; routing_disagreement checks it.
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {

// One layer's routing of `batch` sequences.
struct LayerRouting {
  int batch = 0;
  int experts_per_token = 0;
  std::vector<int> experts;     // (batch, experts_per_token): chosen experts, most probable first
  std::vector<float> weights;   // (batch, experts_per_token): each chosen expert's routing weight
  // Smallest gap, over the sequences, between the router logit of the last
  // expert kept and that of the best one left out: how far the logits may
  // move before the chosen set changes. Infinite when every expert is kept.
  double min_margin = 0;
};

// Routes `batch` rows of `num_experts` router logits (row-major).
LayerRouting route_tokens(const MoeConfig& moe, const float* router_logits, int batch);

// Flops route_tokens computes for `batch` sequences: per sequence the
// softmax (a max comparison, a subtraction, an exp, a sum and a divide per
// expert), top-k by selection (experts_per_token × experts comparisons) and,
// with norm_topk_prob, the kept weights summed and divided (2 per kept).
std::int64_t routing_flops(const MoeConfig& moe, int batch);

// The distinct experts a layer's routing touches, ascending.
std::vector<int> experts_touched(const LayerRouting& routing);

// The distinct experts a layer is expected to touch when each of `batch`
// sequences picks its experts_per_token uniformly and independently:
// E · (1 − (1 − top/E)^batch). A model of routing, not a measurement: reports
// label it MODELLED beside the count the router really chose.
double modelled_distinct_experts(const MoeConfig& moe, int batch);

// Collective over `group`: every rank's chosen experts of every layer
// compared with the group's first rank. Empty when all agree, else one line
// naming the first rank, layer and sequence that differ. `backend` carries
// the exchange (the group's memory kind).
std::string routing_disagreement(Backend& backend, Communicator& group, const std::vector<LayerRouting>& layers);

}  // namespace tpb
