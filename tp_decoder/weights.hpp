#pragma once
// One rank's weights of the decoder (llama2.c's TransformerWeights), drawn
// synthetically by the backend for exactly this rank's slice of each tensor.
// Q/K/V rows and gate/up rows are stored fused so each takes one GEMM, as in
// vLLM's QKVParallelLinear / MergedColumnParallelLinear.
#include <cstdint>
#include <vector>

#include "tp_decoder/backend.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {

// Seed of every synthetic tensor unless a run says otherwise (recorded with the results).
inline constexpr std::uint64_t kDefaultSeed = 0x7470626E63680001ULL;

// One expert's MLP shard (the shared expert's too): gate and up rows fused.
struct ExpertWeights {
  OwnedTensor w_gate_up;  // (2*expert_intermediate/k, hidden): gate rows, then up rows
  OwnedTensor w_down;     // (hidden, expert_intermediate/k)
};

struct LayerWeights {
  OwnedTensor attn_norm;  // (1, hidden)
  OwnedTensor wqkv;       // (q_heads*hd + 2*kv_heads*hd, hidden): this rank's Q rows, then K rows, then V rows
  OwnedTensor bqkv;       // (1, same): qwen2 only, empty otherwise
  OwnedTensor wo;         // (hidden, q_heads*hd): this rank's input columns of O
  OwnedTensor ffn_norm;   // (1, hidden)
  OwnedTensor w_gate_up;  // (2*intermediate/k, hidden): gate rows, then up rows; dense models only
  OwnedTensor w_down;     // (hidden, intermediate/k): this rank's input columns of down; dense models only
  // Mixture-of-experts models only (empty otherwise):
  OwnedTensor router;                  // (experts, hidden), replicated
  std::vector<ExpertWeights> experts;  // every expert's shard, by expert index
  ExpertWeights shared_expert;         // qwen2_moe: (2*shared_intermediate/k, hidden), (hidden, shared_intermediate/k)
  OwnedTensor shared_expert_gate;      // qwen2_moe: (1, hidden), replicated
};

struct DecoderWeights {
  OwnedTensor embedding;      // (vocab, hidden), replicated
  std::vector<LayerWeights> layers;
  OwnedTensor final_norm;     // (1, hidden)
  OwnedTensor lm_head;        // (vocab/k, hidden); the embedding's rows when tied
  OwnedTensor rope_inv_freq;  // (1, head_dim/2), llama3 scaling folded in
};

DecoderWeights build_decoder_weights(Backend& backend, const ModelConfig& config, const ShardPlan& plan,
                                     std::uint64_t seed);

// Synthetic draw of one tensor kind (key and distribution) for `layer` (-1 outside layers).
std::uint64_t weight_key(const ModelConfig& config, int layer, TensorKind kind);
SyntheticInit weight_init(const ModelConfig& config, TensorKind kind);

}  // namespace tpb
