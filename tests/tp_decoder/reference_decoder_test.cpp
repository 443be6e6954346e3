// The CPU backend's decode step against the plain reference decoder on tiny
// configs (GQA, MQA, llama3 RoPE scaling, qwen2 biases, tied embeddings,
// mixture-of-experts layers with and without a shared expert), and
// the pieces the reference pins down one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "reference_decoder.hpp"
#include "test_configs.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/decode_step.hpp"
#include "tp_decoder/rope.hpp"
#include "tp_decoder/weights.hpp"

namespace tpb {
namespace {

// fp32 backend against a double-precision reference: a few fp32 roundings
// per operation over two or three layers, far below 1e-4 of the largest logit.
constexpr double kRelativeTolerance = 1e-4;

using DecodeCase = std::tuple<std::string, int, int>;  // config stem, batch, context

class CpuMatchesReference : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(CpuMatchesReference, LogitsAndGreedyTokens) {
  const auto& [stem, batch, context] = GetParam();
  const ModelConfig config = test::shipped_config(stem);
  const reference::Output expected = reference::decode_step(config, batch, context, kDefaultSeed);

  const std::unique_ptr<Backend> backend = make_backend("cpu");
  const ShardPlan plan = make_shard_plan(config, 1, 0);
  const DecoderWeights weights = build_decoder_weights(*backend, config, plan, kDefaultSeed);
  DecodeState state = build_decode_state(*backend, config, plan, batch, context, kDefaultSeed);
  decode_step(*backend, nullptr, config, weights, state, nullptr);

  std::vector<float> logits(static_cast<std::size_t>(state.logits->numel()));
  backend->download(*state.logits, logits.data());
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(batch));
  backend->download_tokens(*state.next_tokens, tokens.data());

  ASSERT_EQ(logits.size(), expected.logits.size());
  double max_abs = 0, max_diff = 0;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    max_abs = std::max(max_abs, std::fabs(expected.logits[i]));
    max_diff = std::max(max_diff, std::fabs(logits[i] - expected.logits[i]));
  }
  EXPECT_LE(max_diff, kRelativeTolerance * std::max(1.0, max_abs)) << "largest logit " << max_abs;
  EXPECT_EQ(tokens, expected.tokens);
  // A step that ignored its inputs would still "match" a reference that did too: logits must be informative.
  EXPECT_GT(max_abs, 0.1);
}

INSTANTIATE_TEST_SUITE_P(
    TinyConfigs, CpuMatchesReference,
    ::testing::Combine(::testing::Values("tiny-llama", "tiny-mqa", "tiny-qwen2", "tiny-mixtral", "tiny-qwen2-moe"),
                       ::testing::Values(1, 3),
                       ::testing::Values(0, 40)),
    [](const auto& test_case) {
      std::string name = std::get<0>(test_case.param) + "_b" + std::to_string(std::get<1>(test_case.param)) + "_c" +
                         std::to_string(std::get<2>(test_case.param));
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(Rope, Llama3ScalingCoversAllThreeBandsOfTheTinyConfig) {
  // tiny-llama: original context 32, so wavelengths below 8 are kept, above
  // 32 divided by the factor, and those between interpolated.
  const ModelConfig config = test::shipped_config("tiny-llama");
  int kept = 0, scaled = 0, smoothed = 0;
  for (int i = 0; i < config.head_dim / 2; ++i) {
    const double base = std::pow(config.rope_theta, -2.0 * i / config.head_dim);
    const double f = reference::rope_inv_freq(config, i);
    if (f == base) ++kept;
    else if (std::fabs(f - base / config.rope_scaling.factor) < 1e-15) ++scaled;
    else ++smoothed;
  }
  EXPECT_GE(kept, 1);
  EXPECT_GE(scaled, 1);
  EXPECT_GE(smoothed, 1);
}

class RopeTable : public ::testing::TestWithParam<std::string> {};

TEST_P(RopeTable, MatchesTheReferenceDefinition) {
  const ModelConfig config = test::shipped_config(GetParam());
  const std::vector<float> table = rope_inv_freq(config);
  ASSERT_EQ(table.size(), static_cast<std::size_t>(config.head_dim / 2));
  for (int i = 0; i < config.head_dim / 2; ++i)
    EXPECT_EQ(table[static_cast<std::size_t>(i)], static_cast<float>(reference::rope_inv_freq(config, i))) << i;
}

INSTANTIATE_TEST_SUITE_P(Configs, RopeTable,
                         ::testing::Values("tiny-llama", "tiny-qwen2", "llama-3.1-8b", "llama-3.2-1b", "qwen2.5-7b"),
                         [](const auto& test_case) {
                           std::string name = test_case.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

TEST(Rope, Llama31HandValues) {
  const std::vector<float> table = rope_inv_freq(test::shipped_config("llama-3.1-8b"));
  EXPECT_EQ(table[0], 1.0f);  // wavelength 2 pi: high frequency, unchanged
  // i = 63: wavelength 2 pi * 500000^(126/128) ~ 2.6e6 > 8192: divided by 8.
  EXPECT_FLOAT_EQ(table[63], static_cast<float>(std::pow(500000.0, -126.0 / 128.0) / 8.0));
}

TEST(Gqa, QueryHeadsReadTheirGroupsKvHead) {
  // 4 query heads over 2 KV heads, one position: attention returns V of the
  // KV head each query head maps to (h / 2), whatever the scores.
  const std::unique_ptr<Backend> backend = make_backend("cpu");
  const AttentionShape shape{1, 4, 2, 2, 1};
  OwnedTensor qkv(*backend, 1, (4 + 2 + 2) * 2, TensorRole::activation);
  OwnedTensor k_cache(*backend, 1, 2 * 1 * 2, TensorRole::kv_cache);
  OwnedTensor v_cache(*backend, 1, 2 * 1 * 2, TensorRole::kv_cache);
  OwnedTensor out(*backend, 1, 4 * 2, TensorRole::activation);
  const std::vector<float> qkv_values{1, 0, 0, 1, 1, 1, -1, 0, /*K*/ 0, 0, 0, 0, /*V*/ 10, 11, 20, 21};
  backend->upload(*qkv, qkv_values.data());
  backend->kv_write(*k_cache, *v_cache, *qkv, shape, 0);
  backend->attention(*out, *qkv, *k_cache, *v_cache, shape, 1);
  std::vector<float> result(8);
  backend->download(*out, result.data());
  EXPECT_EQ(result, (std::vector<float>{10, 11, 10, 11, 20, 21, 20, 21}));
}

TEST(Qwen2Biases, ChangeTheLogits) {
  // The reference test of tiny-qwen2 only checks biases if they matter there.
  ModelConfig with_bias = test::shipped_config("tiny-qwen2");
  ModelConfig without_bias = with_bias;
  without_bias.qkv_bias = false;
  const reference::Output a = reference::decode_step(with_bias, 1, 8, kDefaultSeed);
  const reference::Output b = reference::decode_step(without_bias, 1, 8, kDefaultSeed);
  double max_diff = 0;
  for (std::size_t i = 0; i < a.logits.size(); ++i) max_diff = std::max(max_diff, std::fabs(a.logits[i] - b.logits[i]));
  EXPECT_GT(max_diff, 1e-2);
}

}  // namespace
}  // namespace tpb
