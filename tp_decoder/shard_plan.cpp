#include "tp_decoder/shard_plan.hpp"

#include <fmt/format.h>

#include <utility>

#include "common/error.hpp"

namespace tpb {

const char* tensor_kind_name(TensorKind kind) {
  const int index = static_cast<int>(kind);
  return index >= 0 && index < kTensorKindCount ? kTensorKinds[index].second : "?";
}

namespace {

// Every weight kind has exactly one rule, the KV history none.
constexpr bool each_weight_kind_has_one_rule() {
  for (const auto& [kind, name] : kTensorKinds) {
    int rules = 0;
    for (const ShardRule& rule : kShardRules) rules += rule.kind == kind ? 1 : 0;
    const bool history = kind == TensorKind::k_history || kind == TensorKind::v_history;
    if (rules != (history ? 0 : 1)) return false;
  }
  return true;
}
static_assert(each_weight_kind_has_one_rule(), "kShardRules holds one rule for each weight kind");

}  // namespace

std::string shard_plan_problem(const ModelConfig& config, int tp) {
  if (tp < 1) return fmt::format("--tp {}: the degree must be at least 1", tp);
  const auto not_divisible = [tp](const char* quantity, int value) {
    return fmt::format("--tp {}: {} ({}) is not divisible by {}", tp, quantity, value, tp);
  };
  if (config.num_heads % tp != 0) return not_divisible("num_attention_heads", config.num_heads);
  if (config.num_kv_heads >= tp && config.num_kv_heads % tp != 0)
    return not_divisible("num_key_value_heads", config.num_kv_heads);
  if (config.num_kv_heads < tp && tp % config.num_kv_heads != 0)
    return fmt::format("--tp {}: {} is not a multiple of num_key_value_heads ({}), so KV heads cannot be replicated evenly",
                       tp, tp, config.num_kv_heads);
  if (config.is_moe()) {
    // A sparse layer has no dense MLP: each expert's width is what k splits.
    const MoeConfig& moe = config.moe;
    const char* expert_width = config.model_type == "mixtral" ? "intermediate_size" : "moe_intermediate_size";
    if (moe.expert_intermediate_size % tp != 0) return not_divisible(expert_width, moe.expert_intermediate_size);
    if (moe.shared_expert_intermediate_size % tp != 0)
      return not_divisible("shared_expert_intermediate_size", moe.shared_expert_intermediate_size);
  } else if (config.intermediate_size % tp != 0) {
    return not_divisible("intermediate_size", config.intermediate_size);
  }
  if (config.vocab_size % tp != 0) return not_divisible("vocab_size", config.vocab_size);
  return {};
}

ShardPlan make_shard_plan(const ModelConfig& config, int tp, int rank) {
  if (const std::string problem = shard_plan_problem(config, tp); !problem.empty()) throw UsageError(problem);
  TPB_CHECK(rank >= 0 && rank < tp, fmt::format("shard plan: rank {} outside a TP-{} group", rank, tp));

  ShardPlan plan;
  plan.tp = tp;
  plan.rank = rank;
  plan.hidden = config.hidden_size;
  plan.head_dim = config.head_dim;
  plan.q_heads = config.num_heads / tp;
  plan.q_head_begin = rank * plan.q_heads;
  plan.kv_replicated = config.num_kv_heads < tp;
  if (plan.kv_replicated) {
    // tp / kv_heads consecutive ranks share one KV head: the one their query heads read.
    plan.kv_heads = 1;
    plan.kv_head_begin = rank / (tp / config.num_kv_heads);
  } else {
    plan.kv_heads = config.num_kv_heads / tp;
    plan.kv_head_begin = rank * plan.kv_heads;
  }
  const MoeConfig& moe = config.moe;
  const std::int64_t dense_intermediate = config.is_moe() ? 0 : config.intermediate_size;
  plan.intermediate = static_cast<int>(dense_intermediate / tp);
  plan.expert_intermediate = moe.expert_intermediate_size / tp;
  plan.shared_intermediate = moe.shared_expert_intermediate_size / tp;
  plan.vocab = config.vocab_size / tp;

  // Global (rows, cols) of each tensor as Hugging Face stores it.
  const std::int64_t hidden = config.hidden_size;
  const std::int64_t experts_width = std::int64_t{moe.num_experts} * moe.expert_intermediate_size;
  const std::int64_t shared = moe.shared_expert_intermediate_size;
  const auto global_shape = [&](TensorKind kind) -> std::pair<std::int64_t, std::int64_t> {
    switch (kind) {
      case TensorKind::embedding: case TensorKind::lm_head: return {config.vocab_size, hidden};
      case TensorKind::wq: return {config.q_dim(), hidden};
      case TensorKind::wk: case TensorKind::wv: return {config.kv_dim(), hidden};
      case TensorKind::bq: return {1, config.q_dim()};
      case TensorKind::bk: case TensorKind::bv: return {1, config.kv_dim()};
      case TensorKind::wo: return {hidden, config.q_dim()};
      case TensorKind::w_gate: case TensorKind::w_up: return {dense_intermediate, hidden};
      case TensorKind::w_down: return {hidden, dense_intermediate};
      case TensorKind::router: return {moe.num_experts, hidden};
      case TensorKind::expert_gate: case TensorKind::expert_up: return {experts_width, hidden};
      case TensorKind::expert_down: return {hidden, experts_width};
      case TensorKind::shared_gate_proj: case TensorKind::shared_up_proj: return {shared, hidden};
      case TensorKind::shared_down_proj: return {hidden, shared};
      case TensorKind::shared_expert_gate: return {shared ? 1 : 0, hidden};
      default: return {1, hidden};  // norm gains
    }
  };
  // This rank's [begin, begin + count) of each split quantity, in elements.
  const auto owned_range = [&plan](Part part) -> std::pair<std::int64_t, std::int64_t> {
    const std::int64_t hd = plan.head_dim;
    switch (part) {
      case Part::q_heads: return {plan.q_head_begin * hd, plan.q_heads * hd};
      case Part::kv_heads: return {plan.kv_head_begin * hd, plan.kv_heads * hd};
      case Part::intermediate: return {std::int64_t{plan.rank} * plan.intermediate, plan.intermediate};
      case Part::vocab: return {std::int64_t{plan.rank} * plan.vocab, plan.vocab};
      // Expert 0's range; expert_slice moves it to another expert.
      case Part::expert_intermediate: return {std::int64_t{plan.rank} * plan.expert_intermediate, plan.expert_intermediate};
      case Part::shared_intermediate: return {std::int64_t{plan.rank} * plan.shared_intermediate, plan.shared_intermediate};
      case Part::none: break;
    }
    return {0, 0};
  };
  for (const ShardRule& rule : kShardRules) {
    const auto [rows, cols] = global_shape(rule.kind);
    TensorSlice slice{rows, cols, 0, rows, 0, cols};
    const auto [begin, count] = owned_range(rule.part);
    if (rule.split == Split::rows) {
      slice.row_begin = begin;
      slice.rows = count;
    } else if (rule.split == Split::cols) {
      slice.col_begin = begin;
      slice.cols = count;
    }
    plan.slices[static_cast<int>(rule.kind)] = slice;
  }
  return plan;
}

TensorSlice expert_slice(const ShardPlan& plan, TensorKind kind, int expert) {
  TPB_CHECK(kind == TensorKind::expert_gate || kind == TensorKind::expert_up || kind == TensorKind::expert_down,
            fmt::format("expert_slice: {} is not an expert tensor", tensor_kind_name(kind)));
  TensorSlice slice = plan.slice(kind);
  // Expert e's global range starts e whole expert widths (k slices each) further.
  const std::int64_t offset = std::int64_t{expert} * plan.expert_intermediate * plan.tp;
  if (kind == TensorKind::expert_down)
    slice.col_begin += offset;
  else
    slice.row_begin += offset;
  return slice;
}

TensorSlice kv_history_slice(const ShardPlan& plan, int global_kv_heads, int batch, int positions) {
  const std::int64_t per_head = static_cast<std::int64_t>(positions) * plan.head_dim;
  return TensorSlice{batch, global_kv_heads * per_head, 0, batch, plan.kv_head_begin * per_head,
                     plan.kv_heads * per_head};
}

}  // namespace tpb
