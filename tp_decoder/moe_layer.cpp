#include "tp_decoder/moe_layer.hpp"

#include <algorithm>
#include <cmath>

#include "tp_decoder/moe_routing.hpp"

namespace tpb {

MoeState build_moe_state(Backend& backend, const ModelConfig& config, const ShardPlan& plan, int batch) {
  const std::int64_t b = batch;
  const std::int64_t experts = config.moe.num_experts;
  MoeState m;
  m.router_logits = OwnedTensor(backend, b, experts, TensorRole::logits);  // f32 everywhere: routing reads them exactly
  m.route_weights = OwnedTensor(backend, experts, b, TensorRole::table);
  m.expert_gate_up = OwnedTensor(backend, b, 2 * std::int64_t{plan.expert_intermediate}, TensorRole::activation);
  m.expert_act = OwnedTensor(backend, b, plan.expert_intermediate, TensorRole::activation);
  m.expert_out = OwnedTensor(backend, b, plan.hidden, TensorRole::activation);
  if (plan.shared_intermediate > 0) {
    m.shared_gate_logit = OwnedTensor(backend, b, 1, TensorRole::logits);
    m.shared_weight = OwnedTensor(backend, 1, b, TensorRole::table);
    m.shared_gate_up = OwnedTensor(backend, b, 2 * std::int64_t{plan.shared_intermediate}, TensorRole::activation);
    m.shared_act = OwnedTensor(backend, b, plan.shared_intermediate, TensorRole::activation);
  }
  m.host_logits.resize(static_cast<std::size_t>(b * experts));
  m.host_weights.resize(static_cast<std::size_t>(b * experts));
  m.routing.resize(static_cast<std::size_t>(config.num_layers));
  return m;
}

void sparse_mlp(Backend& backend, const ModelConfig& config, const LayerWeights& l, int layer, DecodeState& s,
                const std::function<void(Phase)>& done) {
  MoeState& m = s.moe;
  const int batch = static_cast<int>(s.xn->rows);

  // Router: the replicated GEMV, then top-k and softmax on the host; the
  // weights go back as one (experts, b) table, 0 where a sequence did not
  // choose the expert.
  backend.matmul(*m.router_logits, *s.xn, *l.router, nullptr);
  backend.download(*m.router_logits, m.host_logits.data());
  LayerRouting& routing = m.routing[static_cast<std::size_t>(layer)];
  routing = route_tokens(config.moe, m.host_logits.data(), batch);
  backend.host_flops(routing_flops(config.moe, batch));
  std::fill(m.host_weights.begin(), m.host_weights.end(), 0.0f);
  for (int b = 0; b < batch; ++b)
    for (int slot = 0; slot < routing.experts_per_token; ++slot) {
      const std::size_t chosen = static_cast<std::size_t>(b) * static_cast<std::size_t>(routing.experts_per_token) +
                                 static_cast<std::size_t>(slot);
      m.host_weights[static_cast<std::size_t>(routing.experts[chosen]) * static_cast<std::size_t>(batch) +
                     static_cast<std::size_t>(b)] = routing.weights[chosen];
    }
  backend.upload(*m.route_weights, m.host_weights.data());
  done(Phase::router);

  // Routed experts in ascending index (the same order at every degree), the
  // first overwriting the partial sum, the others adding to it.
  bool first = true;
  for (int expert : experts_touched(routing)) {
    const ExpertWeights& e = l.experts[static_cast<std::size_t>(expert)];
    backend.matmul(*m.expert_gate_up, *s.xn, *e.w_gate_up, nullptr);   done(Phase::gate_up);
    backend.silu_mul(*m.expert_act, *m.expert_gate_up);                done(Phase::silu_mul);
    backend.matmul(*m.expert_out, *m.expert_act, *e.w_down, nullptr);  done(Phase::down);
    backend.weighted_rows(*s.partial, *m.expert_out, *m.route_weights, expert, !first);  done(Phase::expert_combine);
    first = false;
  }

  if (!m.shared_gate_up->data) return;
  // Shared expert (qwen2_moe): every sequence, scaled by sigmoid(gate · x).
  backend.matmul(*m.shared_gate_logit, *s.xn, *l.shared_expert_gate, nullptr);
  backend.download(*m.shared_gate_logit, m.host_logits.data());
  for (int b = 0; b < batch; ++b) {
    float& gate = m.host_logits[static_cast<std::size_t>(b)];
    gate = 1.0f / (1.0f + std::exp(-gate));
  }
  backend.host_flops(3 * std::int64_t{batch});  // an exp, an add and a divide each
  backend.upload(*m.shared_weight, m.host_logits.data());
  done(Phase::shared_gate);
  backend.matmul(*m.shared_gate_up, *s.xn, *l.shared_expert.w_gate_up, nullptr);    done(Phase::gate_up);
  backend.silu_mul(*m.shared_act, *m.shared_gate_up);                               done(Phase::silu_mul);
  backend.matmul(*m.expert_out, *m.shared_act, *l.shared_expert.w_down, nullptr);   done(Phase::down);
  backend.weighted_rows(*s.partial, *m.expert_out, *m.shared_weight, 0, true);      done(Phase::expert_combine);
}

}  // namespace tpb
