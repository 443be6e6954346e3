// Routing of a mixture-of-experts layer: softmax, top-k with ties to the
// lowest expert index, the weights with and without renormalisation, the
// experts touched and the count expected of uniform routing (MODELLED), and
// each expert's slice of the stacked expert tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "test_configs.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/moe_routing.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {
namespace {

MoeConfig moe(int experts, int top, bool renormalise) {
  MoeConfig m;
  m.num_experts = experts;
  m.experts_per_token = top;
  m.expert_intermediate_size = 8;
  m.norm_topk_prob = renormalise;
  return m;
}

// The refusal comes before the backend is made, so it needs no device and
// no CUDA build: every machine runs this.
TEST(MoeBackend, CudaRefusesMixtureOfExpertsInOneLineBeforeTouchingADevice) {
  for (const char* stem : {"tiny-mixtral", "tiny-qwen2-moe"}) {
    try {
      make_backend(BackendKind::cuda, test::shipped_config(stem));
      ADD_FAILURE() << stem << ": the cuda backend was made for a mixture-of-experts model";
    } catch (const UsageError& e) {
      const std::string line = e.what();
      EXPECT_EQ(line.find('\n'), std::string::npos) << line;
      EXPECT_NE(line.find("--backend cuda"), std::string::npos) << line;
      EXPECT_NE(line.find("mixture-of-experts"), std::string::npos) << line;
      EXPECT_NE(line.find(stem), std::string::npos) << line;
    }
  }
  EXPECT_NE(make_backend(BackendKind::cpu, test::shipped_config("tiny-mixtral")), nullptr);
}

TEST(MoeRouting, TiesGoToTheLowestExpertIndex) {
  // Row 0: experts 1, 2 and 4 tie for first; row 1: all tie; row 2: 3 and 5 tie for second place.
  const std::vector<float> logits = {0, 3, 3, 1, 3, 2,
                                     5, 5, 5, 5, 5, 5,
                                     9, 0, 1, 4, 0, 4};
  const LayerRouting top2 = route_tokens(moe(6, 2, true), logits.data(), 3);
  EXPECT_EQ(top2.experts, (std::vector<int>{1, 2, 0, 1, 0, 3}));
  const LayerRouting top3 = route_tokens(moe(6, 3, true), logits.data(), 3);
  EXPECT_EQ(top3.experts, (std::vector<int>{1, 2, 4, 0, 1, 2, 0, 3, 5}));
  EXPECT_EQ(top3.min_margin, 0.0);  // row 1 (and row 0's third place) is a tie
}

TEST(MoeRouting, SoftmaxWeightsRenormalisedOnlyWhenTheConfigSays) {
  // Probabilities 1/8, 2/8 and 5/8: the top two are experts 2 and 1.
  const std::vector<float> logits = {0.0f, static_cast<float>(std::log(2.0)), static_cast<float>(std::log(5.0))};
  const LayerRouting raw = route_tokens(moe(3, 2, false), logits.data(), 1);  // qwen2_moe, norm_topk_prob false
  ASSERT_EQ(raw.experts, (std::vector<int>{2, 1}));
  EXPECT_NEAR(raw.weights[0], 5.0 / 8, 1e-6);  // f32 logits: log(2) and log(5) rounded to 2^-24 relative
  EXPECT_NEAR(raw.weights[1], 2.0 / 8, 1e-6);
  EXPECT_NEAR(raw.min_margin, std::log(2.0), 1e-6);  // in logits: expert 1's against expert 0's
  const LayerRouting renormalised = route_tokens(moe(3, 2, true), logits.data(), 1);  // mixtral
  EXPECT_NEAR(renormalised.weights[0], 5.0 / 7, 1e-6);
  EXPECT_NEAR(renormalised.weights[1], 2.0 / 7, 1e-6);
  const LayerRouting every = route_tokens(moe(3, 3, true), logits.data(), 1);
  EXPECT_TRUE(std::isinf(every.min_margin));  // nothing left out: no margin to cross
}

TEST(MoeRouting, ExpertsTouchedAreDistinctAndAscending) {
  LayerRouting r;
  r.experts = {5, 1, 1, 7, 5, 0};
  EXPECT_EQ(experts_touched(r), (std::vector<int>{0, 1, 5, 7}));
}

// The MODELLED count against the router itself: random logits route each
// sequence to a uniformly drawn set of experts, and the mean of the distinct
// experts a batch touches over many draws is the formula's, for Mixtral's
// 8 choose 2 and Qwen1.5-MoE's 60 choose 4.
TEST(MoeRouting, ModelledDistinctExpertsIsTheMeanOfUniformRouting) {
  for (const auto& [experts, top] : {std::pair{8, 2}, std::pair{60, 4}}) {
    const MoeConfig m = moe(experts, top, true);
    EXPECT_DOUBLE_EQ(modelled_distinct_experts(m, 1), top);
    for (int batch : {2, 4, 16}) {
      std::mt19937_64 rng(static_cast<std::uint64_t>(experts * 100 + batch));
      std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
      const int draws = 20000;
      double touched = 0;
      std::vector<float> logits(static_cast<std::size_t>(batch * experts));
      for (int d = 0; d < draws; ++d) {
        for (float& l : logits) l = uniform(rng);
        touched += static_cast<double>(experts_touched(route_tokens(m, logits.data(), batch)).size());
      }
      const double modelled = modelled_distinct_experts(m, batch);
      EXPECT_GT(modelled, top);
      EXPECT_LE(modelled, experts);
      EXPECT_NEAR(touched / draws, modelled, 0.01 * modelled) << experts << " experts, top " << top << ", b " << batch;
    }
  }
}

TEST(MoeShardPlan, EachExpertIsShardedLikeTheDenseMlp) {
  const ModelConfig config = test::shipped_config("tiny-mixtral");  // 8 experts of width 96
  const ShardPlan plan = make_shard_plan(config, 2, 1);
  EXPECT_EQ(plan.expert_intermediate, 48);
  EXPECT_EQ(plan.intermediate, 0);  // no dense MLP
  const TensorSlice gate = expert_slice(plan, TensorKind::expert_gate, 3);
  EXPECT_EQ(gate.global_rows, 8 * 96);
  EXPECT_EQ(gate.row_begin, 3 * 96 + 48);  // expert 3's second half
  EXPECT_EQ(gate.rows, 48);
  EXPECT_EQ(gate.cols, 64);
  const TensorSlice down = expert_slice(plan, TensorKind::expert_down, 3);
  EXPECT_EQ(down.global_cols, 8 * 96);
  EXPECT_EQ(down.col_begin, 3 * 96 + 48);
  EXPECT_EQ(down.cols, 48);
  EXPECT_EQ(down.rows, 64);
  EXPECT_EQ(plan.slice(TensorKind::router).rows, 8);  // replicated
  EXPECT_EQ(shard_plan_problem(config, 4), "");
  ModelConfig narrow = test::shipped_config("tiny-qwen2-moe");
  narrow.moe.expert_intermediate_size = 30;  // k = 4 divides the heads, not the experts
  EXPECT_NE(shard_plan_problem(narrow, 4).find("moe_intermediate_size (30)"), std::string::npos);
}

}  // namespace
}  // namespace tpb
