// Model configs: the shipped real shapes match their published parameter
// counts, and every unsupported or malformed field is refused naming it.
#include <gtest/gtest.h>

#include <string>

#include "common/error.hpp"
#include "test_configs.hpp"

namespace tpb {
namespace {

struct PublishedModel {
  const char* stem;
  long long parameters;  // total parameters as published with the weights
  int layers;
  int kv_heads;
};

class ShippedConfig : public ::testing::TestWithParam<PublishedModel> {};

TEST_P(ShippedConfig, LoadsWithItsPublishedParameterCount) {
  const PublishedModel& model = GetParam();
  const ModelConfig config = test::shipped_config(model.stem);
  EXPECT_EQ(parameter_count(config), model.parameters);
  EXPECT_EQ(config.num_layers, model.layers);
  EXPECT_EQ(config.num_kv_heads, model.kv_heads);
  EXPECT_EQ(config.name, model.stem);
  EXPECT_FALSE(config.json_text.empty());
}

INSTANTIATE_TEST_SUITE_P(Published, ShippedConfig,
                         ::testing::Values(PublishedModel{"llama-3.1-8b", 8030261248LL, 32, 8},
                                           PublishedModel{"llama-3.1-70b", 70553706496LL, 80, 8},
                                           PublishedModel{"llama-3.2-1b", 1235814400LL, 16, 8},
                                           PublishedModel{"mistral-7b-v0.3", 7248023552LL, 32, 8},
                                           PublishedModel{"qwen2.5-7b", 7615616512LL, 28, 4},
                                           PublishedModel{"mixtral-8x7b", 46702792704LL, 32, 8},
                                           PublishedModel{"qwen1.5-moe-a2.7b", 14315784192LL, 24, 16}),
                         [](const auto& test_case) {
                           std::string name = test_case.param.stem;
                           for (char& c : name)
                             if (c == '-' || c == '.') c = '_';
                           return name;
                         });

TEST(ModelConfig, ReadsLlama3RopeScalingAndQwenBiases) {
  const ModelConfig llama = test::shipped_config("llama-3.1-8b");
  EXPECT_TRUE(llama.rope_scaling.llama3);
  EXPECT_DOUBLE_EQ(llama.rope_scaling.factor, 8.0);
  EXPECT_DOUBLE_EQ(llama.rope_scaling.original_max_position_embeddings, 8192.0);
  EXPECT_DOUBLE_EQ(llama.rope_theta, 500000.0);
  EXPECT_EQ(llama.head_dim, 128);
  EXPECT_FALSE(llama.qkv_bias);
  const ModelConfig qwen = test::shipped_config("qwen2.5-7b");
  EXPECT_TRUE(qwen.qkv_bias);
  EXPECT_FALSE(qwen.rope_scaling.llama3);
  EXPECT_TRUE(test::shipped_config("llama-3.2-1b").tie_word_embeddings);
}

TEST(ModelConfig, ReadsTheExpertsOfMixtralAndQwen2Moe) {
  const ModelConfig mixtral = test::shipped_config("mixtral-8x7b");
  EXPECT_TRUE(mixtral.is_moe());
  EXPECT_EQ(mixtral.moe.num_experts, 8);
  EXPECT_EQ(mixtral.moe.experts_per_token, 2);
  EXPECT_EQ(mixtral.moe.expert_intermediate_size, 14336);  // Mixtral's experts are intermediate_size wide
  EXPECT_EQ(mixtral.moe.shared_expert_intermediate_size, 0);
  EXPECT_TRUE(mixtral.moe.norm_topk_prob);  // Mixtral always renormalises its top-k weights
  EXPECT_FALSE(mixtral.qkv_bias);
  const ModelConfig qwen = test::shipped_config("qwen1.5-moe-a2.7b");
  EXPECT_EQ(qwen.moe.num_experts, 60);
  EXPECT_EQ(qwen.moe.experts_per_token, 4);
  EXPECT_EQ(qwen.moe.expert_intermediate_size, 1408);
  EXPECT_EQ(qwen.moe.shared_expert_intermediate_size, 5632);
  EXPECT_FALSE(qwen.moe.norm_topk_prob);
  EXPECT_TRUE(qwen.qkv_bias);  // qwen2_moe keeps qwen2's q/k/v biases
  EXPECT_FALSE(test::shipped_config("llama-3.1-8b").is_moe());
}

TEST(ModelConfig, LayersOverrideKeepsThePublishedCount) {
  const ModelConfig config = with_layers(test::shipped_config("llama-3.1-70b"), 2);
  EXPECT_EQ(config.num_layers, 2);
  EXPECT_EQ(config.num_layers_in_file, 80);
  EXPECT_THROW(with_layers(config, 0), UsageError);
}

TEST(ModelConfig, LayersBeyondTheModelAreRefused) {
  const ModelConfig config = test::shipped_config("tiny-llama");
  EXPECT_EQ(with_layers(config, config.num_layers_in_file).num_layers, config.num_layers_in_file);
  try {
    with_layers(config, config.num_layers_in_file + 1);
    FAIL() << "more layers than num_hidden_layers were accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("num_hidden_layers (" + std::to_string(config.num_layers_in_file) + ")"),
              std::string::npos)
        << error.what();
  }
}

struct BadConfig {
  const char* name;
  const char* json;
  const char* named;  // the field the one-line error must name
};

class RejectedConfig : public ::testing::TestWithParam<BadConfig> {};

TEST_P(RejectedConfig, OneLineErrorNamesTheField) {
  try {
    parse_model_config(GetParam().json, "bad.json");
    FAIL() << "accepted";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(GetParam().named), std::string::npos) << message;
    EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// A decoder of model type `type` with no MoE fields; QWEN_MOE adds qwen2_moe's experts and top-k, QWEN_MOE_FULL every field it needs.
#define MOE_BASE(type) R"("model_type": ")" type R"(", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 256)"
#define QWEN_MOE MOE_BASE("qwen2_moe") R"(, "num_experts": 8, "num_experts_per_tok": 2)"
#define QWEN_MOE_FULL QWEN_MOE R"(, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 64)"
#define TPB_BASE R"("model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 256)"

INSTANTIATE_TEST_SUITE_P(
    Fields, RejectedConfig,
    ::testing::Values(
        BadConfig{"not_json", "{", "not valid JSON"},
        BadConfig{"missing_hidden_size",
                  R"({"model_type": "llama", "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 256})",
                  "hidden_size: missing"},
        BadConfig{"unknown_model_type", R"({"model_type": "gpt2"})", "model_type"},
        BadConfig{"mixture_of_experts", "{" TPB_BASE R"(, "num_local_experts": 8})", "num_local_experts"},
        BadConfig{"yarn_rope", "{" TPB_BASE R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}})",
                  "rope_scaling.rope_type"},
        BadConfig{"llama3_rope_missing_factor",
                  "{" TPB_BASE R"(, "rope_scaling": {"rope_type": "llama3", "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 8192}})",
                  "rope_scaling.factor"},
        BadConfig{"llama3_rope_factor_not_a_number",
                  "{" TPB_BASE R"(, "rope_scaling": {"rope_type": "llama3", "factor": "8", "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 8192}})",
                  "rope_scaling.factor: expected a number"},
        BadConfig{"sliding_window", "{" TPB_BASE R"(, "sliding_window": 4096})", "sliding_window"},
        BadConfig{"kv_heads_not_dividing", "{" TPB_BASE R"(, "num_key_value_heads": 3})", "num_key_value_heads"},
        BadConfig{"negative_vocab", R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": -1})",
                  "vocab_size"},
        BadConfig{"fractional_layers", R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2.5, "num_attention_heads": 4, "vocab_size": 256})",
                  "num_hidden_layers"},
        BadConfig{"gelu", "{" TPB_BASE R"(, "hidden_act": "gelu"})", "hidden_act"},
        BadConfig{"odd_head_dim", "{" TPB_BASE R"(, "head_dim": 15})", "head_dim"},
        BadConfig{"experts_under_mistral", "{" MOE_BASE("mistral") R"(, "num_experts_per_tok": 2})", "num_experts_per_tok"},
        BadConfig{"experts_under_qwen2", "{" MOE_BASE("qwen2") R"(, "num_experts": 8})", "num_experts"},
        BadConfig{"mixtral_without_experts", "{" MOE_BASE("mixtral") R"(, "num_experts_per_tok": 2})", "num_local_experts"},
        BadConfig{"mixtral_without_top_k", "{" MOE_BASE("mixtral") R"(, "num_local_experts": 8})", "num_experts_per_tok"},
        BadConfig{"top_k_above_experts", "{" MOE_BASE("mixtral") R"(, "num_local_experts": 2, "num_experts_per_tok": 3})",
                  "num_experts_per_tok"},
        BadConfig{"zero_experts", "{" MOE_BASE("mixtral") R"(, "num_local_experts": 0, "num_experts_per_tok": 1})",
                  "num_local_experts"},
        BadConfig{"mixtral_sliding_window",
                  "{" MOE_BASE("mixtral") R"(, "num_local_experts": 4, "num_experts_per_tok": 2, "sliding_window": 4096})",
                  "sliding_window"},
        BadConfig{"qwen2_moe_without_expert_width", "{" QWEN_MOE R"(, "shared_expert_intermediate_size": 64})",
                  "moe_intermediate_size"},
        BadConfig{"qwen2_moe_without_shared_width", "{" QWEN_MOE R"(, "moe_intermediate_size": 32})",
                  "shared_expert_intermediate_size"},
        BadConfig{"qwen2_moe_sparse_step",
                  "{" QWEN_MOE_FULL R"(, "decoder_sparse_step": 2})", "decoder_sparse_step"},
        BadConfig{"qwen2_moe_dense_layers", "{" QWEN_MOE_FULL R"(, "mlp_only_layers": [0]})", "mlp_only_layers"},
        BadConfig{"qwen2_moe_norm_topk_not_bool", "{" QWEN_MOE_FULL R"(, "norm_topk_prob": 1})", "norm_topk_prob"},
        BadConfig{"qwen2_moe_sliding_window", "{" QWEN_MOE_FULL R"(, "use_sliding_window": true})",
                  "use_sliding_window"}),
    [](const auto& test_case) { return std::string(test_case.param.name); });

TEST(ModelConfig, MissingFileNamesThePath) {
  try {
    load_model_config("/nonexistent/config.json");
    FAIL() << "accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/config.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace tpb
