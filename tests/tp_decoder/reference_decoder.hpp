#pragma once
// A plain, single-threaded reference decoder written from the equations: no
// BLAS, no OpenMP, no backend, no sharding, double accumulation. It shares
// only the definition of the synthetic weights and inputs with tpbench, so
// it checks everything else (fused layouts, GQA mapping, RoPE and its llama3
// scaling, qwen2 biases, mixture-of-experts routing and experts, the LM
// head, argmax).
#include <cstdint>
#include <vector>

#include "tp_decoder/model_config.hpp"

namespace tpb::reference {

struct Output {
  std::vector<double> logits;        // (batch, vocab)
  std::vector<std::int32_t> tokens;  // (batch) greedy next token
};

// One decode step at position `context` for `batch` sequences whose KV
// history of positions [0, context) is the synthetic history.
Output decode_step(const ModelConfig& config, int batch, int context, std::uint64_t seed);

// RoPE inverse frequency i of head pairs (i, i + head_dim/2), llama3 scaling
// applied as its published definition reads.
double rope_inv_freq(const ModelConfig& config, int i);

}  // namespace tpb::reference
