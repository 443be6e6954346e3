#pragma once
// A decoder's shape, read from a Hugging Face config.json (model_type llama,
// mistral, qwen2, and the mixture-of-experts types mixtral and qwen2_moe).
// Only what the decode step needs; anything the step cannot honour (sliding
// windows, unknown RoPE scaling, MoE layouts other than every layer sparse)
// is refused.
//
// C++17-clean: included by .cu files.
#include <string>

namespace tpb {

// rope_scaling {"rope_type": "llama3", ...} as in Llama 3.1/3.2; absent means
// plain RoPE (factor 1).
struct RopeScaling {
  bool llama3 = false;
  double factor = 1.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  double original_max_position_embeddings = 8192.0;
};

// The sparse MLP of a mixture-of-experts model; every layer is sparse.
// Routing (Hugging Face's MixtralSparseMoeBlock / Qwen2MoeSparseMoeBlock):
// softmax over all experts' router logits, the top experts_per_token kept,
// their weights renormalised to sum to 1 when norm_topk_prob.
struct MoeConfig {
  int num_experts = 0;                  // 0: a dense model. mixtral num_local_experts, qwen2_moe num_experts
  int experts_per_token = 0;            // num_experts_per_tok (top-k)
  int expert_intermediate_size = 0;     // each expert's MLP width: mixtral intermediate_size, qwen2_moe moe_intermediate_size
  int shared_expert_intermediate_size = 0;  // qwen2_moe's always-on expert, scaled by sigmoid(shared gate · x); 0: none
  bool norm_topk_prob = false;          // mixtral always renormalises; qwen2_moe as the config says (default false)
};

struct ModelConfig {
  std::string model_type;          // "llama", "mistral", "qwen2", "mixtral" or "qwen2_moe"
  int hidden_size = 0;             // d_model
  int intermediate_size = 0;       // dense MLP width (unused by MoE layers)
  int num_layers = 0;              // num_hidden_layers, or --layers when overridden
  int num_layers_in_file = 0;      // num_hidden_layers as published
  int num_heads = 0;               // num_attention_heads (query heads)
  int num_kv_heads = 0;            // num_key_value_heads (GQA)
  int head_dim = 0;                // head_dim, default hidden_size / num_heads
  int vocab_size = 0;
  int max_position_embeddings = 0;
  double rms_norm_eps = 1e-5;
  double rope_theta = 10000.0;
  RopeScaling rope_scaling;
  bool tie_word_embeddings = false;
  bool qkv_bias = false;           // qwen2, qwen2_moe: q/k/v projections carry a bias
  MoeConfig moe;                   // num_experts 0 for dense models
  std::string name;                // file stem, e.g. "llama-3.1-8b"
  std::string json_text;           // the file as loaded, for /config

  int q_dim() const { return num_heads * head_dim; }      // width of Q (and of attention output)
  int kv_dim() const { return num_kv_heads * head_dim; }  // width of K and of V
  bool is_moe() const { return moe.num_experts > 0; }
};

// Reads and validates a config.json. Throws UsageError naming the file and
// the field ("config llama.json: num_key_value_heads must divide num_attention_heads (32), got 5").
ModelConfig load_model_config(const std::string& path);

// The same from JSON text; `source` names it in errors.
ModelConfig parse_model_config(const std::string& json_text, const std::string& source);

// The config with its layer count replaced (--layers N, memory-limited runs);
// UsageError unless 1 <= layers.
ModelConfig with_layers(ModelConfig config, int layers);

// Parameters held by the whole model (all layers, every expert, embedding, LM head unless tied).
long long parameter_count(const ModelConfig& config);

}  // namespace tpb
