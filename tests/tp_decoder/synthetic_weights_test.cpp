// Synthetic weights: each rank of TP-k generates exactly its slice of the
// TP-1 tensor, bit for bit, and the draws are scaled as documented.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>

#include "test_configs.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/decode_step.hpp"
#include "tp_decoder/weights.hpp"

namespace tpb {
namespace {

std::vector<float> host_copy(Backend& backend, const Tensor& t) {
  std::vector<float> values(static_cast<std::size_t>(t.numel()));
  backend.download(t, values.data());
  return values;
}

// Element (r, c) of a (rows x cols) host matrix.
float at(const std::vector<float>& m, std::int64_t cols, std::int64_t r, std::int64_t c) {
  return m[static_cast<std::size_t>(r * cols + c)];
}

using SliceCase = std::tuple<std::string, int>;  // config stem, k

class TpSlices : public ::testing::TestWithParam<SliceCase> {};

TEST_P(TpSlices, EqualTheTp1TensorsBitForBit) {
  const auto& [stem, tp] = GetParam();
  const ModelConfig config = test::shipped_config(stem);
  const std::unique_ptr<Backend> backend = make_backend("cpu");
  const ShardPlan full_plan = make_shard_plan(config, 1, 0);
  const DecoderWeights full = build_decoder_weights(*backend, config, full_plan, kDefaultSeed);
  const LayerWeights& f = full.layers.back();
  const std::vector<float> f_qkv = host_copy(*backend, *f.wqkv);
  const std::vector<float> f_down = host_copy(*backend, *f.w_down);
  const std::vector<float> f_head = host_copy(*backend, *full.lm_head);
  const std::int64_t hd = config.head_dim;
  const std::int64_t hidden = config.hidden_size;

  for (int rank = 0; rank < tp; ++rank) {
    const ShardPlan plan = make_shard_plan(config, tp, rank);
    const DecoderWeights part = build_decoder_weights(*backend, config, plan, kDefaultSeed);
    const LayerWeights& p = part.layers.back();
    const std::vector<float> qkv = host_copy(*backend, *p.wqkv);
    // Fused rows: this rank's Q heads, then its K heads, then its V heads (TP-1: all Q, all K, all V).
    const std::int64_t q_rows = plan.q_heads * hd, kv_rows = plan.kv_heads * hd;
    for (std::int64_t r = 0; r < q_rows + 2 * kv_rows; ++r) {
      std::int64_t full_row = 0;
      if (r < q_rows) full_row = plan.q_head_begin * hd + r;
      else if (r < q_rows + kv_rows) full_row = config.q_dim() + plan.kv_head_begin * hd + (r - q_rows);
      else full_row = config.q_dim() + config.kv_dim() + plan.kv_head_begin * hd + (r - q_rows - kv_rows);
      ASSERT_EQ(std::memcmp(&qkv[static_cast<std::size_t>(r * hidden)], &f_qkv[static_cast<std::size_t>(full_row * hidden)],
                            static_cast<std::size_t>(hidden) * sizeof(float)),
                0)
          << "rank " << rank << " wqkv row " << r;
    }
    const std::vector<float> down = host_copy(*backend, *p.w_down);  // (hidden, intermediate/k): columns split
    for (std::int64_t r = 0; r < hidden; ++r)
      for (std::int64_t c = 0; c < plan.intermediate; ++c)
        ASSERT_EQ(at(down, plan.intermediate, r, c),
                  at(f_down, config.intermediate_size, r, std::int64_t{rank} * plan.intermediate + c))
            << "rank " << rank << " w_down (" << r << ", " << c << ")";
    const std::vector<float> head = host_copy(*backend, *part.lm_head);  // vocabulary rows split
    ASSERT_EQ(std::memcmp(head.data(), &f_head[static_cast<std::size_t>(std::int64_t{rank} * plan.vocab * hidden)],
                          head.size() * sizeof(float)),
              0)
        << "rank " << rank << " lm_head";
  }
}

TEST_P(TpSlices, KvHistoryIsTheTp1HistoryOfTheRanksHeads) {
  const auto& [stem, tp] = GetParam();
  const ModelConfig config = test::shipped_config(stem);
  const std::unique_ptr<Backend> backend = make_backend("cpu");
  const int batch = 2, context = 5;
  const DecodeState full = build_decode_state(*backend, config, make_shard_plan(config, 1, 0), batch, context, kDefaultSeed);
  const std::vector<float> f_keys = host_copy(*backend, *full.k_cache[0]);
  const std::int64_t per_head = std::int64_t{context + 1} * config.head_dim;
  for (int rank = 0; rank < tp; ++rank) {
    const ShardPlan plan = make_shard_plan(config, tp, rank);
    const DecodeState part = build_decode_state(*backend, config, plan, batch, context, kDefaultSeed);
    const std::vector<float> keys = host_copy(*backend, *part.k_cache[0]);
    for (int b = 0; b < batch; ++b)
      ASSERT_EQ(std::memcmp(&keys[static_cast<std::size_t>(b * plan.kv_heads * per_head)],
                            &f_keys[static_cast<std::size_t>((b * config.num_kv_heads + plan.kv_head_begin) * per_head)],
                            static_cast<std::size_t>(plan.kv_heads * per_head) * sizeof(float)),
                0)
          << "rank " << rank << " sequence " << b;
  }
}

INSTANTIATE_TEST_SUITE_P(Degrees, TpSlices,
                         ::testing::Values(SliceCase{"tiny-llama", 2}, SliceCase{"tiny-llama", 4},
                                           SliceCase{"tiny-mqa", 4}, SliceCase{"tiny-qwen2", 2}),
                         [](const auto& test_case) {
                           std::string name = std::get<0>(test_case.param) + "_tp" + std::to_string(std::get<1>(test_case.param));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(SyntheticValue, StepIsAPowerOfTwoAndAmplitudeNearInverseSqrtFanIn) {
  for (long long fan_in : {64LL, 4096LL, 14336LL, 28672LL}) {
    const SyntheticInit init = linear_init(fan_in);
    int exponent = 0;
    EXPECT_EQ(std::frexp(init.step, &exponent), 0.5f) << fan_in;  // a power of two
    const double amplitude = static_cast<double>(init.step) * (1 << 23);
    EXPECT_LE(amplitude, std::sqrt(3.0 / static_cast<double>(fan_in)));
    EXPECT_GT(amplitude, 0.5 * std::sqrt(3.0 / static_cast<double>(fan_in)));
  }
  // Draws spread over the whole range, centred.
  double sum = 0, max_abs = 0;
  const SyntheticInit unit = embedding_init();
  for (std::uint64_t i = 0; i < 4096; ++i) {
    const float v = synthetic_value(kDefaultSeed, 7, i / 64, i % 64, 64, unit);
    sum += v;
    max_abs = std::max(max_abs, static_cast<double>(std::fabs(v)));
  }
  EXPECT_LT(std::fabs(sum / 4096), 0.05);
  EXPECT_GT(max_abs, 0.95);
  EXPECT_LE(max_abs, 1.0);
}

}  // namespace
}  // namespace tpb
