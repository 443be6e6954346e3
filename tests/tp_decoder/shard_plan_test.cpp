// The shard plan: degrees that do not divide the model are refused naming the
// quantity; for valid ones the ranks' slices tile every split tensor exactly
// once, and each rank's KV heads are the ones its query heads read.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "common/error.hpp"
#include "test_configs.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {
namespace {

struct Rejection {
  const char* name;
  const char* stem;  // shipped config, or empty for `json`
  const char* json;
  int tp;
  const char* named;
};

class RejectedDegree : public ::testing::TestWithParam<Rejection> {};

TEST_P(RejectedDegree, NamesTheQuantity) {
  const Rejection& r = GetParam();
  const ModelConfig config = *r.stem ? test::shipped_config(r.stem) : parse_model_config(r.json, "custom");
  try {
    make_shard_plan(config, r.tp, 0);
    FAIL() << "accepted --tp " << r.tp;
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(r.named), std::string::npos) << error.what();
  }
  EXPECT_NE(shard_plan_problem(config, r.tp).find(r.named), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Degrees, RejectedDegree,
    ::testing::Values(
        Rejection{"llama8b_tp3", "llama-3.1-8b", "", 3, "num_attention_heads (32) is not divisible by 3"},
        Rejection{"qwen7b_tp8", "qwen2.5-7b", "", 8, "num_attention_heads (28) is not divisible by 8"},
        Rejection{"kv6_tp4", "",
                  R"({"model_type":"llama","hidden_size":96,"intermediate_size":128,"num_hidden_layers":1,"num_attention_heads":12,"num_key_value_heads":6,"vocab_size":256})",
                  4, "num_key_value_heads (6)"},
        Rejection{"kv2_tp6", "",
                  R"({"model_type":"llama","hidden_size":96,"intermediate_size":96,"num_hidden_layers":1,"num_attention_heads":12,"num_key_value_heads":4,"vocab_size":96})",
                  6, "num_key_value_heads (4)"},
        Rejection{"intermediate_tp4", "",
                  R"({"model_type":"llama","hidden_size":64,"intermediate_size":130,"num_hidden_layers":1,"num_attention_heads":4,"vocab_size":256})",
                  4, "intermediate_size (130)"},
        Rejection{"vocab_tp4", "",
                  R"({"model_type":"llama","hidden_size":64,"intermediate_size":128,"num_hidden_layers":1,"num_attention_heads":4,"vocab_size":250})",
                  4, "vocab_size (250)"}),
    [](const auto& test_case) { return std::string(test_case.param.name); });

using PlanCase = std::tuple<std::string, int>;  // config stem, k

class ShardPlanTiling : public ::testing::TestWithParam<PlanCase> {};

TEST_P(ShardPlanTiling, SlicesTileEachSplitTensorOnce) {
  const auto& [stem, tp] = GetParam();
  const ModelConfig config = test::shipped_config(stem);
  std::vector<ShardPlan> plans;
  for (int r = 0; r < tp; ++r) plans.push_back(make_shard_plan(config, tp, r));
  for (const ShardRule& rule : kShardRules) {
    const TensorSlice& first = plans[0].slice(rule.kind);
    std::int64_t covered = 0;
    std::int64_t next_begin = 0;
    for (const ShardPlan& plan : plans) {
      const TensorSlice& s = plan.slice(rule.kind);
      ASSERT_EQ(s.global_rows, first.global_rows) << tensor_kind_name(rule.kind);
      ASSERT_EQ(s.global_cols, first.global_cols) << tensor_kind_name(rule.kind);
      if (rule.split == Split::replicated) {
        EXPECT_EQ(s.rows * s.cols, s.global_rows * s.global_cols) << tensor_kind_name(rule.kind);
        continue;
      }
      const bool by_rows = rule.split == Split::rows;
      const std::int64_t begin = by_rows ? s.row_begin : s.col_begin;
      const std::int64_t count = by_rows ? s.rows : s.cols;
      EXPECT_EQ(by_rows ? s.cols : s.rows, by_rows ? s.global_cols : s.global_rows) << tensor_kind_name(rule.kind);
      if (rule.part == Part::kv_heads && plans[0].kv_replicated) continue;  // checked below
      EXPECT_EQ(begin, next_begin) << tensor_kind_name(rule.kind) << " rank " << plan.rank;
      next_begin = begin + count;
      covered += count;
    }
    if (rule.split != Split::replicated && !(rule.part == Part::kv_heads && plans[0].kv_replicated)) {
      EXPECT_EQ(covered, rule.split == Split::rows ? first.global_rows : first.global_cols) << tensor_kind_name(rule.kind);
    }
  }
}

TEST_P(ShardPlanTiling, EachRankHoldsTheKvHeadsItsQueryHeadsRead) {
  const auto& [stem, tp] = GetParam();
  const ModelConfig config = test::shipped_config(stem);
  const int group = config.num_heads / config.num_kv_heads;
  for (int r = 0; r < tp; ++r) {
    const ShardPlan plan = make_shard_plan(config, tp, r);
    EXPECT_EQ(plan.kv_replicated, config.num_kv_heads < tp);
    EXPECT_EQ(plan.q_heads % plan.kv_heads, 0);
    const int local_group = plan.q_heads / plan.kv_heads;
    for (int h = 0; h < plan.q_heads; ++h) {
      const int global_kv = (plan.q_head_begin + h) / group;          // the model's GQA mapping
      const int local_kv = plan.kv_head_begin + h / local_group;      // what this rank's attention reads
      EXPECT_EQ(local_kv, global_kv) << "rank " << r << " query head " << h;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, ShardPlanTiling,
    ::testing::Values(PlanCase{"tiny-llama", 1}, PlanCase{"tiny-llama", 2}, PlanCase{"tiny-llama", 4},
                      PlanCase{"tiny-mqa", 4}, PlanCase{"tiny-mqa", 8}, PlanCase{"tiny-qwen2", 4},
                      PlanCase{"llama-3.1-8b", 8}, PlanCase{"llama-3.1-8b", 16}, PlanCase{"llama-3.1-70b", 8},
                      PlanCase{"qwen2.5-7b", 4}, PlanCase{"mistral-7b-v0.3", 2}),
    [](const auto& test_case) {
      std::string name = std::get<0>(test_case.param) + "_tp" + std::to_string(std::get<1>(test_case.param));
      for (char& c : name)
        if (c == '-' || c == '.') c = '_';
      return name;
    });

}  // namespace
}  // namespace tpb
