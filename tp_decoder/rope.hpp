#pragma once
// RoPE inverse frequencies, with Llama 3's frequency-dependent scaling folded
// in (transformers' _compute_llama3_parameters). The backends only ever see
// this table: angle_i = position * inv_freq[i].
#include <vector>

#include "tp_decoder/model_config.hpp"

namespace tpb {

// head_dim / 2 values, computed in double and rounded once to fp32.
std::vector<float> rope_inv_freq(const ModelConfig& config);

}  // namespace tpb
