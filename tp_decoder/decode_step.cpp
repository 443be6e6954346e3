#include "tp_decoder/decode_step.hpp"

#include "common/error.hpp"
#include "tp_decoder/moe_layer.hpp"

namespace tpb {

const char* phase_name(Phase phase) {
  for (const auto& [p, name] : kPhases)
    if (p == phase) return name;
  return "?";
}

std::int32_t synthetic_token(const ModelConfig& config, std::uint64_t seed, int sequence) {
  return static_cast<std::int32_t>(mix64(seed ^ mix64(0x746F6B656EULL + static_cast<std::uint64_t>(sequence))) %
                                   static_cast<std::uint64_t>(config.vocab_size));
}

DecodeState build_decode_state(Backend& backend, const ModelConfig& config, const ShardPlan& plan, int batch,
                               int context, std::uint64_t seed) {
  TPB_CHECK(batch >= 1 && context >= 0, "decode state: batch must be >= 1 and context >= 0");
  DecodeState s;
  s.shape = AttentionShape{batch, plan.q_heads, plan.kv_heads, plan.head_dim, context + 1};
  s.position = context;
  const std::int64_t b = batch;
  const std::int64_t hd = plan.head_dim;
  s.tokens = OwnedTensor(backend, 1, b, TensorRole::tokens);
  s.x = OwnedTensor(backend, b, plan.hidden, TensorRole::activation);
  s.xn = OwnedTensor(backend, b, plan.hidden, TensorRole::activation);
  s.qkv = OwnedTensor(backend, b, qkv_cols(s.shape), TensorRole::activation);
  s.att = OwnedTensor(backend, b, plan.q_heads * hd, TensorRole::activation);
  s.partial = OwnedTensor(backend, b, plan.hidden, TensorRole::activation);
  if (config.is_moe()) {
    s.moe = build_moe_state(backend, config, plan, batch);
  } else {
    s.gate_up = OwnedTensor(backend, b, 2 * std::int64_t{plan.intermediate}, TensorRole::activation);
    s.act = OwnedTensor(backend, b, plan.intermediate, TensorRole::activation);
  }
  s.logits = OwnedTensor(backend, b, plan.vocab, TensorRole::logits);
  s.logits_all = OwnedTensor(backend, plan.tp * b, plan.vocab, TensorRole::logits);
  s.next_tokens = OwnedTensor(backend, 1, b, TensorRole::tokens);

  const TensorSlice history = kv_history_slice(plan, config.num_kv_heads, batch, context + 1);
  const SyntheticInit init = kv_history_init();
  for (int layer = 0; layer < config.num_layers; ++layer) {
    s.k_cache.emplace_back(backend, b, history.cols, TensorRole::kv_cache);
    s.v_cache.emplace_back(backend, b, history.cols, TensorRole::kv_cache);
    // Position `context` is drawn too and then overwritten by every step's KV write.
    backend.fill_synthetic(*s.k_cache.back(), 0, history, seed,
                           synthetic_tensor_key(layer, static_cast<int>(TensorKind::k_history)), init);
    backend.fill_synthetic(*s.v_cache.back(), 0, history, seed,
                           synthetic_tensor_key(layer, static_cast<int>(TensorKind::v_history)), init);
  }
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(batch));
  for (int i = 0; i < batch; ++i) tokens[static_cast<std::size_t>(i)] = synthetic_token(config, seed, i);
  backend.upload_tokens(*s.tokens, tokens.data());
  return s;
}

StepTimeline::StepTimeline(Backend& backend) : backend_(backend) {}

StepTimeline::~StepTimeline() {
  for (EventHandle event : events_) backend_.destroy_event(event);
}

void StepTimeline::start() {
  phases_.clear();
  if (events_.empty()) events_.push_back(backend_.create_event());
  backend_.record_event(events_[0]);
}

void StepTimeline::mark(Phase phase) {
  phases_.push_back(phase);
  if (events_.size() <= phases_.size()) events_.push_back(backend_.create_event());  // first step only
  backend_.record_event(events_[phases_.size()]);
}

std::array<double, kPhaseCount> StepTimeline::phase_us() {
  std::array<double, kPhaseCount> total{};
  for (std::size_t i = 0; i < phases_.size(); ++i)
    total[static_cast<std::size_t>(phases_[i])] += backend_.elapsed_us(events_[i], events_[i + 1]);
  return total;
}

void decode_step(Backend& backend, Communicator* group, const ModelConfig& config, const DecoderWeights& w,
                 DecodeState& s, StepTimeline* timeline, const LayerObserver& after_layer) {
  const auto done = [timeline](Phase phase) {
    if (timeline) timeline->mark(phase);
  };
  // Sums this rank's partial output with its peers' in place: the only
  // communication inside a layer.
  const auto all_reduce = [&backend, group](Tensor& t) {
    if (group) group->all_reduce(t.data, t.data, static_cast<std::size_t>(t.numel()), comm_datatype(t.type), backend.stream());
  };
  const float eps = static_cast<float>(config.rms_norm_eps);

  if (timeline) timeline->start();
  backend.embedding(*s.x, *w.embedding, *s.tokens);                    done(Phase::embedding);

  for (int layer = 0; layer < config.num_layers; ++layer) {
    const LayerWeights& l = w.layers[static_cast<std::size_t>(layer)];
    Tensor& k_cache = *s.k_cache[static_cast<std::size_t>(layer)];
    Tensor& v_cache = *s.v_cache[static_cast<std::size_t>(layer)];

    // Attention: Q/K/V column-parallel (this rank's heads), O row-parallel.
    backend.rmsnorm(*s.xn, *s.x, *l.attn_norm, eps);                   done(Phase::norm);
    backend.matmul(*s.qkv, *s.xn, *l.wqkv, l.bqkv->data ? &*l.bqkv : nullptr);  done(Phase::qkv);
    backend.rope(*s.qkv, s.shape, s.position, *w.rope_inv_freq);       done(Phase::rope_kv);
    backend.kv_write(k_cache, v_cache, *s.qkv, s.shape, s.position);   done(Phase::rope_kv);
    backend.attention(*s.att, *s.qkv, k_cache, v_cache, s.shape, s.position + 1);  done(Phase::attention);
    backend.matmul(*s.partial, *s.att, *l.wo, nullptr);                done(Phase::o_proj);
    all_reduce(*s.partial);  /* ==== ALL-REDUCE 1 of 2 ==== */        done(Phase::all_reduce);
    backend.add(*s.x, *s.partial);                                     done(Phase::residual);

    // MLP: gate/up column-parallel, down row-parallel. A sparse layer runs
    // the experts it routes to (and its shared expert) the same way and sums
    // their weighted partial outputs into the one partial sum.
    backend.rmsnorm(*s.xn, *s.x, *l.ffn_norm, eps);                    done(Phase::norm);
    if (config.is_moe()) {
      sparse_mlp(backend, config, l, layer, s, done);
    } else {
      backend.matmul(*s.gate_up, *s.xn, *l.w_gate_up, nullptr);        done(Phase::gate_up);
      backend.silu_mul(*s.act, *s.gate_up);                            done(Phase::silu_mul);
      backend.matmul(*s.partial, *s.act, *l.w_down, nullptr);          done(Phase::down);
    }
    all_reduce(*s.partial);  /* ==== ALL-REDUCE 2 of 2 ==== */        done(Phase::all_reduce);
    backend.add(*s.x, *s.partial);                                     done(Phase::residual);

    if (after_layer) after_layer(layer, *s.x);
  }

  // LM head vocab-parallel: each rank scores its vocabulary shard, the shards
  // are all-gathered and every rank picks the same greedy token.
  backend.rmsnorm(*s.xn, *s.x, *w.final_norm, eps);                    done(Phase::norm);
  backend.matmul(*s.logits, *s.xn, *w.lm_head, nullptr);               done(Phase::lm_head);
  if (group) {
    group->all_gather(s.logits->data, s.logits_all->data, static_cast<std::size_t>(s.logits->numel()),
                      comm_datatype(s.logits->type), backend.stream());  done(Phase::all_gather);
    backend.argmax(*s.next_tokens, *s.logits_all, group->size());      done(Phase::argmax);
  } else {
    backend.argmax(*s.next_tokens, *s.logits, 1);                      done(Phase::argmax);
  }
}

}  // namespace tpb
