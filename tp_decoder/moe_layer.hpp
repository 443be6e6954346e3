#pragma once
// The sparse MLP of a mixture-of-experts layer, issued by decode_step in
// place of the dense MLP (decode_step.hpp). Each expert is sharded like the
// dense MLP, so a rank's routed and shared expert outputs are partial sums
// that the layer's second all-reduce joins: a sparse layer keeps two
// all-reduces.
//
// Every routed expert runs on the whole batch and its output is weighted in
// row by row, a row not routed to it weighted 0: the expert's weights are
// read once per step whichever sequences chose it, which is the traffic a
// decode step's GEMV is bound by, at the price of flops on rows that add 0.
#include <functional>

#include "tp_decoder/backend.hpp"
#include "tp_decoder/decode_step.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/shard_plan.hpp"
#include "tp_decoder/weights.hpp"

namespace tpb {

// The buffers of `batch` sequences on `plan`'s shard.
MoeState build_moe_state(Backend& backend, const ModelConfig& config, const ShardPlan& plan, int batch);

// From s.xn (the normalised residual, identical on every rank of the group)
// to s.partial, this rank's partial sum of the layer's MLP output; records
// the routing in s.moe.routing[layer]. `done` books the interval since the
// previous mark to a phase.
void sparse_mlp(Backend& backend, const ModelConfig& config, const LayerWeights& weights, int layer, DecodeState& s,
                const std::function<void(Phase)>& done);

}  // namespace tpb
