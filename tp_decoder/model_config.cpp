#include "tp_decoder/model_config.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/read_file.hpp"

namespace tpb {
namespace {

using nlohmann::json;

// Reads fields of one config (or of one object in it, whose fields are named
// with `prefix`), naming the file and the field in every error.
class FieldReader {
 public:
  FieldReader(const json& object, std::string source, std::string prefix = {})
      : object_(object), source_(std::move(source)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw UsageError(fmt::format("config {}: {}{}: {}", source_, prefix_, field, problem));
  }

  bool has(const std::string& field) const { return object_.contains(field) && !object_.at(field).is_null(); }

  // A required field whose value `is_kind` accepts; else "expected {kind}, got ...".
  const json& value(const std::string& field, bool (json::*is_kind)() const, const char* kind) const {
    if (!has(field)) fail(field, "missing (required)");
    const json& value = object_.at(field);
    if (!(value.*is_kind)()) fail(field, fmt::format("expected {}, got {}", kind, value.dump()));
    return value;
  }

  int positive_int(const std::string& field) const {
    const long long number = value(field, &json::is_number_integer, "a whole number").get<long long>();
    if (number < 1 || number > (1LL << 30)) fail(field, fmt::format("expected a positive count, got {}", number));
    return static_cast<int>(number);
  }

  int positive_int_or(const std::string& field, int fallback) const {
    return has(field) ? positive_int(field) : fallback;
  }

  double positive_number(const std::string& field) const {
    const json& number = value(field, &json::is_number, "a number");
    if (!(number.get<double>() > 0)) fail(field, fmt::format("expected a positive number, got {}", number.dump()));
    return number.get<double>();
  }

  double positive_number_or(const std::string& field, double fallback) const {
    return has(field) ? positive_number(field) : fallback;
  }

  bool boolean_or(const std::string& field, bool fallback) const {
    return has(field) ? value(field, &json::is_boolean, "true or false").get<bool>() : fallback;
  }

  std::string text(const std::string& field) const {
    return value(field, &json::is_string, "a string").get<std::string>();
  }

  const std::string& source() const { return source_; }

 private:
  const json& object_;
  std::string source_;
  std::string prefix_;
};

bool is_moe_type(const std::string& model_type) { return model_type == "mixtral" || model_type == "qwen2_moe"; }

// Fields whose presence means a model the decode step does not compute.
void refuse_unsupported(const FieldReader& in, const std::string& model_type) {
  if (!is_moe_type(model_type))
    for (const char* moe : {"num_local_experts", "num_experts", "n_routed_experts", "num_experts_per_tok",
                            "moe_intermediate_size", "shared_expert_intermediate_size"})
      if (in.has(moe))
        in.fail(moe, fmt::format("mixture-of-experts fields need model_type mixtral or qwen2_moe, got '{}'", model_type));
  if (in.has("hidden_act") && in.text("hidden_act") != "silu")
    in.fail("hidden_act", fmt::format("only silu is supported, got '{}'", in.text("hidden_act")));
  if (in.boolean_or("attention_bias", false)) in.fail("attention_bias", "attention biases are only supported as qwen2's q/k/v biases");
  if (in.boolean_or("mlp_bias", false)) in.fail("mlp_bias", "MLP biases are not supported");
  // Qwen2 configs (dense and MoE) carry sliding_window but enable it only with use_sliding_window.
  if (model_type == "qwen2" || model_type == "qwen2_moe") {
    if (in.boolean_or("use_sliding_window", false)) in.fail("use_sliding_window", "sliding-window attention is not supported");
  } else if (in.has("sliding_window")) {
    in.fail("sliding_window", "sliding-window attention is not supported (null or absent is)");
  }
}

// The sparse MLP of a mixtral or qwen2_moe config (HF MixtralConfig, Qwen2MoeConfig).
MoeConfig read_moe(const FieldReader& in, const std::string& model_type, int intermediate_size) {
  MoeConfig moe;
  if (model_type == "mixtral") {
    moe.num_experts = in.positive_int("num_local_experts");
    moe.expert_intermediate_size = intermediate_size;  // every Mixtral expert is a full-width MLP
    moe.norm_topk_prob = true;                         // MixtralSparseMoeBlock always renormalises
  } else {
    moe.num_experts = in.positive_int("num_experts");
    moe.expert_intermediate_size = in.positive_int("moe_intermediate_size");
    moe.shared_expert_intermediate_size = in.positive_int("shared_expert_intermediate_size");
    moe.norm_topk_prob = in.boolean_or("norm_topk_prob", false);
    // Which layers are sparse: every layer is the only layout the step computes.
    if (const int step = in.positive_int_or("decoder_sparse_step", 1); step != 1)
      in.fail("decoder_sparse_step", fmt::format("only 1 (every layer sparse) is supported, got {}", step));
    if (in.has("mlp_only_layers")) {
      const json& dense = in.value("mlp_only_layers", &json::is_array, "an empty list (no dense layers)");
      if (!dense.empty())
        in.fail("mlp_only_layers", fmt::format("only an empty list (no dense layers) is supported, got {}", dense.dump()));
    }
  }
  moe.experts_per_token = in.positive_int("num_experts_per_tok");
  if (moe.experts_per_token > moe.num_experts)
    in.fail("num_experts_per_tok", fmt::format("must not exceed the number of experts ({}), got {}", moe.num_experts,
                                               moe.experts_per_token));
  return moe;
}

RopeScaling read_rope_scaling(const FieldReader& in) {
  RopeScaling scaling;
  if (!in.has("rope_scaling")) return scaling;
  const FieldReader rope(in.value("rope_scaling", &json::is_object, "an object or null"), in.source(), "rope_scaling.");
  // Older configs name the kind "type", newer ones "rope_type".
  const std::string kind = rope.has("rope_type") ? rope.text("rope_type") : rope.has("type") ? rope.text("type") : "";
  if (kind == "default") return scaling;
  if (kind != "llama3") rope.fail("rope_type", fmt::format("only 'llama3' (or 'default') is supported, got '{}'", kind));
  scaling.llama3 = true;
  scaling.factor = rope.positive_number("factor");
  scaling.low_freq_factor = rope.positive_number("low_freq_factor");
  scaling.high_freq_factor = rope.positive_number("high_freq_factor");
  scaling.original_max_position_embeddings = rope.positive_number("original_max_position_embeddings");
  if (!(scaling.high_freq_factor > scaling.low_freq_factor))
    rope.fail("high_freq_factor",
              fmt::format("must exceed low_freq_factor ({}), got {}", scaling.low_freq_factor, scaling.high_freq_factor));
  return scaling;
}

}  // namespace

ModelConfig parse_model_config(const std::string& json_text, const std::string& source) {
  json document;
  try {
    document = json::parse(json_text);
  } catch (const json::exception& error) {  // parse_error, and out_of_range for numbers like 1e400
    throw UsageError(fmt::format("config {}: not valid JSON ({})", source, error.what()));
  }
  if (!document.is_object()) throw UsageError(fmt::format("config {}: expected a JSON object", source));
  const FieldReader in(document, source);

  ModelConfig config;
  config.model_type = in.text("model_type");
  if (config.model_type != "llama" && config.model_type != "mistral" && config.model_type != "qwen2" &&
      !is_moe_type(config.model_type))
    in.fail("model_type",
            fmt::format("expected llama, mistral, qwen2, mixtral or qwen2_moe, got '{}'", config.model_type));
  refuse_unsupported(in, config.model_type);

  config.hidden_size = in.positive_int("hidden_size");
  config.intermediate_size = in.positive_int("intermediate_size");
  config.num_layers = in.positive_int("num_hidden_layers");
  config.num_layers_in_file = config.num_layers;
  config.num_heads = in.positive_int("num_attention_heads");
  config.num_kv_heads = in.positive_int_or("num_key_value_heads", config.num_heads);
  config.vocab_size = in.positive_int("vocab_size");
  config.max_position_embeddings = in.positive_int_or("max_position_embeddings", 2048);
  config.rms_norm_eps = in.positive_number_or("rms_norm_eps", 1e-6);
  config.rope_theta = in.positive_number_or("rope_theta", 10000.0);
  config.rope_scaling = read_rope_scaling(in);
  config.tie_word_embeddings = in.boolean_or("tie_word_embeddings", false);
  config.qkv_bias = config.model_type == "qwen2" || config.model_type == "qwen2_moe";
  if (is_moe_type(config.model_type)) config.moe = read_moe(in, config.model_type, config.intermediate_size);

  if (config.num_heads % config.num_kv_heads != 0)
    in.fail("num_key_value_heads", fmt::format("must divide num_attention_heads ({}), got {}", config.num_heads,
                                               config.num_kv_heads));
  if (in.has("head_dim")) {
    config.head_dim = in.positive_int("head_dim");
  } else {
    if (config.hidden_size % config.num_heads != 0)
      in.fail("hidden_size", fmt::format("not divisible by num_attention_heads ({}) and no head_dim given, got {}",
                                         config.num_heads, config.hidden_size));
    config.head_dim = config.hidden_size / config.num_heads;
  }
  if (config.head_dim % 2 != 0) in.fail("head_dim", fmt::format("must be even for RoPE, got {}", config.head_dim));
  config.json_text = json_text;
  config.name = std::filesystem::path(source).stem().string();
  return config;
}

ModelConfig load_model_config(const std::string& path) {
  const std::optional<std::string> text = read_file(path);
  if (!text) throw UsageError(fmt::format("--model: cannot read config file '{}'", path));
  return parse_model_config(*text, path);
}

ModelConfig with_layers(ModelConfig config, int layers) {
  if (layers < 1) throw UsageError(fmt::format("--layers: invalid value '{}' (expected at least 1)", layers));
  // More layers than the model has would describe a model that does not exist.
  if (layers > config.num_layers_in_file)
    throw UsageError(fmt::format("--layers: {} exceeds the model's num_hidden_layers ({})", layers,
                                 config.num_layers_in_file));
  config.num_layers = layers;
  return config;
}

long long parameter_count(const ModelConfig& config) {
  const long long hidden = config.hidden_size;
  const long long attention = hidden * config.q_dim() * 2 + hidden * config.kv_dim() * 2 +
                              (config.qkv_bias ? config.q_dim() + 2LL * config.kv_dim() : 0);
  const MoeConfig& moe = config.moe;
  // A sparse layer: the router (experts, hidden), every expert's gate, up and
  // down, and the shared expert with its (1, hidden) gate.
  const long long mlp = config.is_moe()
                            ? moe.num_experts * hidden + 3LL * hidden * moe.expert_intermediate_size * moe.num_experts +
                                  (moe.shared_expert_intermediate_size
                                       ? 3LL * hidden * moe.shared_expert_intermediate_size + hidden
                                       : 0)
                            : 3LL * hidden * config.intermediate_size;
  const long long layer = attention + mlp + 2 * hidden;
  const long long embedding = static_cast<long long>(config.vocab_size) * hidden;
  return config.num_layers * layer + hidden + embedding * (config.tie_word_embeddings ? 1 : 2);
}

}  // namespace tpb
