#include "tp_decoder/weights.hpp"

#include <utility>
#include <vector>

#include "tp_decoder/rope.hpp"

namespace tpb {

std::uint64_t weight_key(const ModelConfig& config, int layer, TensorKind kind) {
  // A tied LM head is the embedding matrix itself.
  if (kind == TensorKind::lm_head && config.tie_word_embeddings) kind = TensorKind::embedding;
  const bool global = kind == TensorKind::embedding || kind == TensorKind::final_norm || kind == TensorKind::lm_head;
  return synthetic_tensor_key(global ? -1 : layer, static_cast<int>(kind));
}

SyntheticInit weight_init(const ModelConfig& config, TensorKind kind) {
  switch (kind) {
    case TensorKind::embedding: return embedding_init();
    case TensorKind::lm_head: return config.tie_word_embeddings ? embedding_init() : linear_init(config.hidden_size);
    case TensorKind::attn_norm: case TensorKind::ffn_norm: case TensorKind::final_norm: return norm_gain_init();
    case TensorKind::bq: case TensorKind::bk: case TensorKind::bv: return bias_init();
    case TensorKind::wo: return linear_init(config.q_dim());
    case TensorKind::w_down: return linear_init(config.intermediate_size);
    case TensorKind::expert_down: return linear_init(config.moe.expert_intermediate_size);
    case TensorKind::shared_down_proj: return linear_init(config.moe.shared_expert_intermediate_size);
    case TensorKind::k_history: case TensorKind::v_history: return kv_history_init();
    default: return linear_init(config.hidden_size);  // wq, wk, wv, w_gate, w_up, router, expert and shared gate/up, shared gate
  }
}

namespace {

// Tensors of one rank, filled slice by slice from the same global draw on every degree.
class WeightBuilder {
 public:
  WeightBuilder(Backend& backend, const ModelConfig& config, const ShardPlan& plan, std::uint64_t seed)
      : backend_(backend), config_(config), plan_(plan), seed_(seed) {}

  // One tensor made of the listed kinds' slices stacked by rows.
  OwnedTensor stacked(int layer, std::initializer_list<TensorKind> kinds) {
    std::vector<std::pair<TensorKind, TensorSlice>> parts;
    for (TensorKind kind : kinds) parts.emplace_back(kind, plan_.slice(kind));
    return stacked_slices(layer, parts);
  }

  // Expert `expert`'s gate and up slices stacked, and its down slice.
  ExpertWeights expert(int layer, int expert) {
    ExpertWeights e;
    e.w_gate_up = stacked_slices(layer, {{TensorKind::expert_gate, expert_slice(plan_, TensorKind::expert_gate, expert)},
                                         {TensorKind::expert_up, expert_slice(plan_, TensorKind::expert_up, expert)}});
    e.w_down = stacked_slices(layer, {{TensorKind::expert_down, expert_slice(plan_, TensorKind::expert_down, expert)}});
    return e;
  }

  // One tensor made of the given slices stacked by rows.
  OwnedTensor stacked_slices(int layer, const std::vector<std::pair<TensorKind, TensorSlice>>& parts) {
    std::int64_t rows = 0;
    for (const auto& [kind, slice] : parts) rows += slice.rows;
    OwnedTensor tensor(backend_, rows, parts.front().second.cols, TensorRole::weight);
    std::int64_t row = 0;
    for (const auto& [kind, slice] : parts) {
      backend_.fill_synthetic(*tensor, row, slice, seed_, weight_key(config_, layer, kind), weight_init(config_, kind));
      row += slice.rows;
    }
    return tensor;
  }

  // Vectors (1, n) stacked by columns (the fused Q/K/V bias): small, so drawn
  // on the host with the same function and uploaded.
  OwnedTensor joined(int layer, std::initializer_list<TensorKind> kinds) {
    std::vector<float> values;
    for (TensorKind kind : kinds) {
      const TensorSlice& slice = plan_.slice(kind);
      const std::uint64_t key = weight_key(config_, layer, kind);
      const SyntheticInit init = weight_init(config_, kind);
      for (std::int64_t c = 0; c < slice.cols; ++c)
        values.push_back(synthetic_value(seed_, key, 0, static_cast<std::uint64_t>(slice.col_begin + c),
                                         static_cast<std::uint64_t>(slice.global_cols), init));
    }
    OwnedTensor tensor(backend_, 1, static_cast<std::int64_t>(values.size()), TensorRole::weight);
    backend_.upload(*tensor, values.data());
    return tensor;
  }

 private:
  Backend& backend_;
  const ModelConfig& config_;
  const ShardPlan& plan_;
  std::uint64_t seed_;
};

}  // namespace

DecoderWeights build_decoder_weights(Backend& backend, const ModelConfig& config, const ShardPlan& plan,
                                     std::uint64_t seed) {
  WeightBuilder build(backend, config, plan, seed);
  DecoderWeights w;
  w.embedding = build.stacked(-1, {TensorKind::embedding});
  for (int layer = 0; layer < config.num_layers; ++layer) {
    LayerWeights l;
    l.attn_norm = build.stacked(layer, {TensorKind::attn_norm});
    l.wqkv = build.stacked(layer, {TensorKind::wq, TensorKind::wk, TensorKind::wv});
    if (config.qkv_bias) l.bqkv = build.joined(layer, {TensorKind::bq, TensorKind::bk, TensorKind::bv});
    l.wo = build.stacked(layer, {TensorKind::wo});
    l.ffn_norm = build.stacked(layer, {TensorKind::ffn_norm});
    if (config.is_moe()) {
      l.router = build.stacked(layer, {TensorKind::router});
      for (int e = 0; e < config.moe.num_experts; ++e) l.experts.push_back(build.expert(layer, e));
      if (config.moe.shared_expert_intermediate_size) {
        l.shared_expert.w_gate_up = build.stacked(layer, {TensorKind::shared_gate_proj, TensorKind::shared_up_proj});
        l.shared_expert.w_down = build.stacked(layer, {TensorKind::shared_down_proj});
        l.shared_expert_gate = build.stacked(layer, {TensorKind::shared_expert_gate});
      }
    } else {
      l.w_gate_up = build.stacked(layer, {TensorKind::w_gate, TensorKind::w_up});
      l.w_down = build.stacked(layer, {TensorKind::w_down});
    }
    w.layers.push_back(std::move(l));
  }
  w.final_norm = build.stacked(-1, {TensorKind::final_norm});
  w.lm_head = build.stacked(-1, {TensorKind::lm_head});
  const std::vector<float> inv_freq = rope_inv_freq(config);
  w.rope_inv_freq = OwnedTensor(backend, 1, static_cast<std::int64_t>(inv_freq.size()), TensorRole::table);
  backend.upload(*w.rope_inv_freq, inv_freq.data());
  return w;
}

}  // namespace tpb
