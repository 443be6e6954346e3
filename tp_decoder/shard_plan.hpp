#pragma once
// Tensor parallelism as one table and one function (as gpt-fast's tp.py):
// Q/K/V and gate/up are split by output rows (column-parallel, Q, K and V
// separately by heads), O and down by input columns (row-parallel, followed
// by an all-reduce), the LM head by vocabulary rows (followed by an
// all-gather of logits), embedding and norms replicated. KV heads are split
// when kv_heads >= k and replicated when kv_heads < k (as vLLM does).
// Mixture-of-experts layers shard every expert like the dense MLP (gate/up
// by rows, down by columns, over each expert's own intermediate range), and
// replicate the router and the shared expert's sigmoid gate.
//
// C++17-clean: included by .cu files.
#include <array>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>

#include "common/enum_table.hpp"
#include "tp_decoder/model_config.hpp"

namespace tpb {

// Every weight tensor of the decoder. The value is part of the synthetic
// weight key (synthetic_tensor_key): never renumber.
enum class TensorKind : int {
  embedding = 0,   // (vocab, hidden)
  attn_norm = 1,   // (1, hidden)
  wq = 2,          // (heads * head_dim, hidden)
  wk = 3,          // (kv_heads * head_dim, hidden)
  wv = 4,          // (kv_heads * head_dim, hidden)
  bq = 5,          // (1, heads * head_dim), qwen2 only
  bk = 6,          // (1, kv_heads * head_dim), qwen2 only
  bv = 7,          // (1, kv_heads * head_dim), qwen2 only
  wo = 8,          // (hidden, heads * head_dim)
  ffn_norm = 9,    // (1, hidden)
  w_gate = 10,     // (intermediate, hidden)
  w_up = 11,       // (intermediate, hidden)
  w_down = 12,     // (hidden, intermediate)
  final_norm = 13, // (1, hidden)
  lm_head = 14,    // (vocab, hidden); drawn with the embedding's key when tied
  k_history = 15,  // KV cache history, (batch, kv_heads * positions * head_dim)
  v_history = 16,
  // Mixture-of-experts layers (empty in dense models). The experts of one
  // kind are one global tensor, expert e owning rows (or, for down, columns)
  // [e * expert_intermediate, (e + 1) * expert_intermediate): expert_slice.
  router = 17,              // (experts, hidden)
  expert_gate = 18,         // (experts * expert_intermediate, hidden)
  expert_up = 19,           // (experts * expert_intermediate, hidden)
  expert_down = 20,         // (hidden, experts * expert_intermediate)
  shared_gate_proj = 21,    // (shared_intermediate, hidden): the shared expert's MLP, qwen2_moe only
  shared_up_proj = 22,      // (shared_intermediate, hidden)
  shared_down_proj = 23,    // (hidden, shared_intermediate)
  shared_expert_gate = 24,  // (1, hidden): the shared expert's output is scaled by sigmoid(this · x)
};
// Every tensor kind with its name, in enum order: the kind count is this list's length.
inline constexpr std::pair<TensorKind, const char*> kTensorKinds[] = {
    {TensorKind::embedding, "embedding"}, {TensorKind::attn_norm, "attn_norm"}, {TensorKind::wq, "wq"},
    {TensorKind::wk, "wk"}, {TensorKind::wv, "wv"}, {TensorKind::bq, "bq"}, {TensorKind::bk, "bk"},
    {TensorKind::bv, "bv"}, {TensorKind::wo, "wo"}, {TensorKind::ffn_norm, "ffn_norm"},
    {TensorKind::w_gate, "w_gate"}, {TensorKind::w_up, "w_up"}, {TensorKind::w_down, "w_down"},
    {TensorKind::final_norm, "final_norm"}, {TensorKind::lm_head, "lm_head"}, {TensorKind::k_history, "k_history"},
    {TensorKind::v_history, "v_history"}, {TensorKind::router, "router"}, {TensorKind::expert_gate, "expert_gate"},
    {TensorKind::expert_up, "expert_up"}, {TensorKind::expert_down, "expert_down"},
    {TensorKind::shared_gate_proj, "shared_gate_proj"}, {TensorKind::shared_up_proj, "shared_up_proj"},
    {TensorKind::shared_down_proj, "shared_down_proj"}, {TensorKind::shared_expert_gate, "shared_expert_gate"}};
inline constexpr int kTensorKindCount = static_cast<int>(std::size(kTensorKinds));
static_assert(lists_enum_in_order(kTensorKinds, TensorKind::shared_expert_gate),
              "kTensorKinds lists every tensor kind once, in enum order");

const char* tensor_kind_name(TensorKind kind);  // "wq", "w_down", ...

// Which stored dimension a tensor is split along across the k ranks.
// Weights are stored (out_features, in_features) as in Hugging Face, biases
// and gains (1, features).
enum class Split {
  replicated,  // every rank holds the whole tensor
  rows,        // weight output features: column-parallel linear (Q/K/V by heads, gate/up, LM head by vocab)
  cols,        // weight input features: row-parallel linear (O, down), partial sums all-reduced;
               // also the features of a bias of a column-parallel linear
};

// The quantity whose range a rank owns along the split dimension.
enum class Part { none, q_heads, kv_heads, intermediate, vocab, expert_intermediate, shared_intermediate };

// The table (Megatron-LM / vLLM layout): how each weight tensor is split.
struct ShardRule {
  TensorKind kind;
  Split split;
  Part part;
};
// One rule for every kind but k_history and v_history (the KV cache,
// kv_history_slice); shard_plan.cpp asserts each kind has its one rule.
inline constexpr int kShardRuleCount = kTensorKindCount - 2;
inline constexpr std::array<ShardRule, kShardRuleCount> kShardRules{{
    {TensorKind::embedding, Split::replicated, Part::none},
    {TensorKind::attn_norm, Split::replicated, Part::none},
    {TensorKind::wq, Split::rows, Part::q_heads},        // column-parallel, by query head
    {TensorKind::wk, Split::rows, Part::kv_heads},       // column-parallel, by KV head
    {TensorKind::wv, Split::rows, Part::kv_heads},
    {TensorKind::bq, Split::cols, Part::q_heads},        // bias (1, out): follows its weight's rows
    {TensorKind::bk, Split::cols, Part::kv_heads},
    {TensorKind::bv, Split::cols, Part::kv_heads},
    {TensorKind::wo, Split::cols, Part::q_heads},        // row-parallel: all-reduce after
    {TensorKind::ffn_norm, Split::replicated, Part::none},
    {TensorKind::w_gate, Split::rows, Part::intermediate},
    {TensorKind::w_up, Split::rows, Part::intermediate},
    {TensorKind::w_down, Split::cols, Part::intermediate},  // row-parallel: all-reduce after
    {TensorKind::final_norm, Split::replicated, Part::none},
    {TensorKind::lm_head, Split::rows, Part::vocab},     // vocab-parallel: all-gather of logits after
    {TensorKind::router, Split::replicated, Part::none},  // every rank routes alike
    {TensorKind::expert_gate, Split::rows, Part::expert_intermediate},
    {TensorKind::expert_up, Split::rows, Part::expert_intermediate},
    {TensorKind::expert_down, Split::cols, Part::expert_intermediate},  // joins the MLP's all-reduce
    {TensorKind::shared_gate_proj, Split::rows, Part::shared_intermediate},
    {TensorKind::shared_up_proj, Split::rows, Part::shared_intermediate},
    {TensorKind::shared_down_proj, Split::cols, Part::shared_intermediate},  // joins the MLP's all-reduce
    {TensorKind::shared_expert_gate, Split::replicated, Part::none},
}};

// One rank's piece of a global (rows x cols) tensor: a rectangle.
struct TensorSlice {
  std::int64_t global_rows = 0;
  std::int64_t global_cols = 0;
  std::int64_t row_begin = 0;
  std::int64_t rows = 0;
  std::int64_t col_begin = 0;
  std::int64_t cols = 0;
};

// What one rank of TP-k holds and computes.
struct ShardPlan {
  int tp = 1;               // k
  int rank = 0;             // this rank's index in its TP group
  int q_heads = 0;          // query heads on this rank: heads / k
  int q_head_begin = 0;     // first global query head
  int kv_heads = 0;         // KV heads on this rank: kv_heads / k, or 1 when replicated
  int kv_head_begin = 0;    // first global KV head
  bool kv_replicated = false;  // kv_heads < k: several ranks hold the same KV head
  int intermediate = 0;     // intermediate / k (0 in a mixture-of-experts model: no dense MLP)
  int expert_intermediate = 0;  // expert_intermediate / k: each expert's slice
  int shared_intermediate = 0;  // shared_expert_intermediate / k
  int vocab = 0;            // vocab / k (LM head rows and logits per rank)
  int head_dim = 0;
  int hidden = 0;
  // Global shape and this rank's rectangle of every tensor (KV history excluded: see kv_history_slice).
  std::array<TensorSlice, kTensorKindCount> slices{};

  const TensorSlice& slice(TensorKind kind) const { return slices[static_cast<int>(kind)]; }
};

// The one function. Throws UsageError when k does not divide the heads, the
// KV heads (or k is not a multiple of them), the intermediate size or the
// vocabulary, naming the quantity: "--tp 3: num_attention_heads (32) is not divisible by 3".
ShardPlan make_shard_plan(const ModelConfig& config, int tp, int rank);

// Rank `plan.rank`'s rectangle of expert `expert` in the stacked expert
// tensor `kind` (expert_gate, expert_up or expert_down).
TensorSlice expert_slice(const ShardPlan& plan, TensorKind kind, int expert);

// Same check without building a plan; empty string when k is valid.
std::string shard_plan_problem(const ModelConfig& config, int tp);

// The KV history of one layer for `batch` sequences with room for `positions`
// tokens, as a global (batch, kv_heads * positions * head_dim) tensor, and
// this rank's rectangle of it (its KV heads).
TensorSlice kv_history_slice(const ShardPlan& plan, int global_kv_heads, int batch, int positions);

}  // namespace tpb
