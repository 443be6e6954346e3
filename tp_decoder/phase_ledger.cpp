#include "tp_decoder/phase_ledger.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "tp_decoder/shard_plan.hpp"
#include "tp_decoder/weights.hpp"

namespace tpb {
namespace {

constexpr std::int64_t kToken = 4;  // i32 token ids
constexpr std::int64_t kTable = 4;  // the RoPE inverse frequencies stay f32 (TensorRole::table)

std::int64_t size_of(ElementType type) { return static_cast<std::int64_t>(element_size(type)); }

// One rank's step, phase by phase, counted from one description of it: rank
// 0's shard at the point (k, b, c) and the storage size of each tensor role.
// Each member function counts one part of the step that decode_step issues.
struct LedgerCounter {
  LedgerCounter(const ModelConfig& config, const ShardPlan& plan, int batch, int context, const MemoryTypes& types,
                bool with_collectives)
      : w(size_of(types.weight)), a(size_of(types.activation)), kv(size_of(types.kv_cache)),
        lg(size_of(types.logits)), L(config.num_layers), k(plan.tp), b(batch), t(std::int64_t{context} + 1),
        H(plan.hidden), hd(plan.head_dim), qh(plan.q_heads), kvh(plan.kv_heads), I(plan.intermediate), V(plan.vocab),
        qkv((qh + 2 * kvh) * hd), bias(config.qkv_bias ? qkv : 0), collectives(with_collectives && plan.tp > 1) {}

  const std::int64_t w, a, kv, lg;  // bytes per weight, activation, KV-cache and logit element
  const std::int64_t L, k, b;
  const std::int64_t t;    // positions attended: the history and the decoded token
  const std::int64_t H, hd, qh;
  const std::int64_t kvh;  // 1 when replicated (kv_heads < k)
  const std::int64_t I;
  const std::int64_t V;    // this rank's vocabulary shard
  const std::int64_t qkv, bias;
  const bool collectives;  // a group of one rank issues no collective (k = 1 has none)
  PhaseLedger ledger;

  PhaseCost& at(Phase phase) { return ledger.phases[static_cast<std::size_t>(phase)]; }

  // A GEMM (b, in) · (out, in)^T [+ bias] on `calls` intervals: the weight
  // and the input read, the output written, a multiply-add per weight and
  // row, and an add per output element when biased.
  void matmul(Phase phase, std::int64_t calls, std::int64_t out, std::int64_t in, std::int64_t bias_cols,
              std::int64_t out_bytes) {
    PhaseCost& p = at(phase);
    p.intervals += calls;
    p.weight_bytes_read += calls * (out * in + bias_cols) * w;
    p.bytes_read += calls * ((out * in + bias_cols) * w + b * in * a);
    p.bytes_written += calls * b * out * out_bytes;
    p.flops += calls * (2 * b * out * in + (bias_cols ? b * out : 0));
  }

  // Embedding: b token ids and the b table rows they name, copied out.
  void embedding() {
    PhaseCost& embedding = at(Phase::embedding);
    embedding.intervals = 1;
    embedding.weight_bytes_read = b * H * w;
    embedding.bytes_read = b * kToken + b * H * w;
    embedding.bytes_written = b * H * a;
  }

  // RMSNorm, before attention and the MLP of every layer and before the LM
  // head: the residual and the gain read, the normalised row written. Per
  // row: x² summed (2H), the mean, + eps, sqrt and reciprocal (4), then
  // × inv_rms × gain (2H).
  void norms() {
    PhaseCost& norm = at(Phase::norm);
    norm.intervals = 2 * L + 1;
    norm.weight_bytes_read = norm.intervals * H * w;
    norm.bytes_read = norm.intervals * (b * H * a + H * w);
    norm.bytes_written = norm.intervals * b * H * a;
    norm.flops = norm.intervals * b * (4 * H + 4);
  }

  void attention_block() {
    // Q, K and V of this rank's heads in one GEMM (column-parallel), biased on qwen2.
    matmul(Phase::qkv, L, qkv, H, bias, a);

    // RoPE on the Q and K heads in place: the inverse frequencies read, an
    // angle, its cos and its sin per frequency (3 · hd/2), and per rotated pair
    // two products and a difference, two products and a sum (6). Then the KV
    // write copies K and V of every sequence into the caches at the position.
    PhaseCost& rope_kv = at(Phase::rope_kv);
    const std::int64_t rotated = b * (qh + kvh) * hd;
    const std::int64_t kv_new = 2 * b * kvh * hd;
    rope_kv.intervals = 2 * L;
    rope_kv.bytes_read = L * (hd / 2 * kTable + rotated * a + kv_new * a);
    rope_kv.bytes_written = L * (rotated * a + kv_new * kv);
    rope_kv.flops = L * (3 * (hd / 2) + 3 * rotated);

    // Attention of every sequence and query head over t positions: Q, and this
    // rank's K and V caches (each KV head once, however many query heads share
    // it), read; the output written. Per (sequence, query head): q·k over t
    // positions (2·t·hd), the scale, the running max, the subtraction, exp and
    // sum of the softmax (5t), the sum's reciprocal (1), the normalised weights
    // (t), and their sum over V (2·t·hd).
    PhaseCost& attention = at(Phase::attention);
    attention.intervals = L;
    attention.bytes_read = L * (b * qh * hd * a + 2 * b * kvh * t * hd * kv);
    attention.bytes_written = L * b * qh * hd * a;
    attention.flops = L * b * qh * (4 * t * hd + 6 * t + 1);

    // O and down are row-parallel: each rank's output is a (b, hidden) partial sum.
    matmul(Phase::o_proj, L, H, qh * hd, 0, a);
  }

  void all_reduces_and_residuals() {
    // Two all-reduces per layer, in place on the partial sum: this rank's
    // buffer read and overwritten with the sum of k partials, (k − 1) adds per
    // element. A group of one sums nothing and moves nothing.
    PhaseCost& all_reduce = at(Phase::all_reduce);
    all_reduce.intervals = 2 * L;
    if (collectives && k > 1) {
      all_reduce.bytes_read = 2 * L * b * H * a;
      all_reduce.bytes_written = 2 * L * b * H * a;
      all_reduce.flops = 2 * L * (k - 1) * b * H;
    }

    // The residual add after attention and after the MLP: x += partial.
    PhaseCost& residual = at(Phase::residual);
    residual.intervals = 2 * L;
    residual.bytes_read = 2 * L * 2 * b * H * a;
    residual.bytes_written = 2 * L * b * H * a;
    residual.flops = 2 * L * b * H;
  }

  // One MLP of width `width` (this rank's slice) run `calls` times: gate and
  // up in one GEMM (column-parallel), silu(gate) · up (per element an exp,
  // an add, a divide and a multiply), down (row-parallel).
  void mlp(std::int64_t calls, std::int64_t width) {
    matmul(Phase::gate_up, calls, 2 * width, H, 0, a);
    PhaseCost& silu_mul = at(Phase::silu_mul);
    silu_mul.intervals += calls;
    silu_mul.bytes_read += calls * b * 2 * width * a;
    silu_mul.bytes_written += calls * b * width * a;
    silu_mul.flops += calls * 4 * b * width;
    matmul(Phase::down, calls, H, width, 0, a);
  }

  // A sparse layer of every layer, `experts_read` expert shards read in all.
  void sparse_layers(const MoeConfig& moe, const ShardPlan& plan, std::int64_t experts_read) {
    const std::int64_t E = moe.num_experts;
    const std::int64_t top = moe.experts_per_token;
    const std::int64_t shared = plan.shared_intermediate > 0 ? 1 : 0;

    // Router: the replicated GEMV to (b, E) logits, then on each sequence's
    // row the softmax (a max comparison, a subtraction, an exp, a sum and a
    // divide per expert), top-k by selection (top × E comparisons) and, with
    // norm_topk_prob, the kept weights summed and divided (2 per kept); the
    // (E, b) f32 weight table written.
    matmul(Phase::router, L, E, H, 0, lg);
    PhaseCost& router = at(Phase::router);
    router.bytes_read += L * b * E * lg;
    router.bytes_written += L * E * b * kTable;
    router.flops += L * b * (5 * E + top * E + (moe.norm_topk_prob ? 2 * top : 0));

    // Each touched expert's MLP on the whole batch, then the shared expert's.
    mlp(experts_read, plan.expert_intermediate);
    if (shared) {
      mlp(L, plan.shared_intermediate);
      // The shared gate: a (1, hidden) GEMV per sequence, then its sigmoid
      // (an exp, an add and a divide) written as a (1, b) f32 row.
      matmul(Phase::shared_gate, L, 1, H, 0, lg);
      PhaseCost& gate = at(Phase::shared_gate);
      gate.bytes_read += L * b * lg;
      gate.bytes_written += L * b * kTable;
      gate.flops += L * 3 * b;
    }

    // expert_combine: each expert output (b, H) times its weight row (b f32)
    // into the partial sum; a layer's first expert overwrites it (a multiply
    // per element), every later one adds (a multiply-add, the sum read too).
    PhaseCost& combine = at(Phase::expert_combine);
    const std::int64_t combines = experts_read + L * shared;
    const std::int64_t adds = combines - L;  // every layer routes to at least one expert
    combine.intervals = combines;
    combine.bytes_read = combines * (b * H * a + b * kTable) + adds * b * H * a;
    combine.bytes_written = combines * b * H * a;
    combine.flops = combines * b * H + adds * b * H;
  }

  void head() {
    // The vocab-parallel LM head: this rank's vocabulary rows, logits stored at
    // the logits type. A tied head is still its own shard of the embedding rows.
    matmul(Phase::lm_head, 1, V, H, 0, lg);

    // The logits all-gather (out of place, a group of one copies too): this
    // rank's shard read, every rank's written. Then argmax compares every
    // logit it sees once and writes b token ids.
    const std::int64_t shards = collectives ? k : 1;
    if (collectives) {
      PhaseCost& all_gather = at(Phase::all_gather);
      all_gather.intervals = 1;
      all_gather.bytes_read = b * V * lg;
      all_gather.bytes_written = k * b * V * lg;
    }
    PhaseCost& argmax = at(Phase::argmax);
    argmax.intervals = 1;
    argmax.bytes_read = shards * b * V * lg;
    argmax.bytes_written = b * kToken;
    argmax.flops = shards * b * V;
  }
};

}  // namespace

PhaseCost PhaseLedger::total() const {
  PhaseCost sum;
  for (const PhaseCost& p : phases) {
    sum.intervals += p.intervals;
    sum.bytes_read += p.bytes_read;
    sum.bytes_written += p.bytes_written;
    sum.flops += p.flops;
    sum.weight_bytes_read += p.weight_bytes_read;
  }
  return sum;
}

PhaseLedger phase_ledger(const ModelConfig& config, int tp, int batch, int context, const MemoryTypes& types,
                         bool collectives, const std::vector<int>& experts_touched) {
  // make_shard_plan refuses a degree that does not fit, naming the quantity.
  const ShardPlan plan = make_shard_plan(config, tp, 0);
  LedgerCounter c(config, plan, batch, context, types, collectives);
  c.embedding();
  c.norms();
  c.attention_block();
  c.all_reduces_and_residuals();
  std::int64_t experts_read = 0;  // expert shards read per step, over layers
  if (!config.is_moe()) {
    c.mlp(c.L, c.I);
  } else {
    if (experts_touched.size() != static_cast<std::size_t>(c.L))
      throw UsageError(fmt::format("phase ledger: a mixture-of-experts ledger needs the experts touched of each of "
                                   "its {} layers, got {}", c.L, experts_touched.size()));
    for (int n : experts_touched) experts_read += n;
    c.sparse_layers(config.moe, plan, experts_read);
  }
  c.head();

  PhaseLedger& ledger = c.ledger;
  ledger.tp = tp;
  ledger.batch = batch;
  ledger.context = context;
  if (c.collectives) ledger.collectives = CollectiveCounts{c.b * c.H * c.a, 2 * c.L, c.b * c.k * c.V * c.lg, 1};
  ledger.weight_bytes_per_step = ledger.total().weight_bytes_read;
  // The step reads b embedding rows; a rank holds the whole table, every
  // expert (the step reads those it routes to), and the RoPE table the step
  // reads once per layer.
  const std::int64_t experts_unread = c.L * config.moe.num_experts - experts_read;
  ledger.resident_bytes = ledger.weight_bytes_per_step - c.b * c.H * c.w + std::int64_t{config.vocab_size} * c.H * c.w +
                          experts_unread * expert_shard_elements(plan) * c.w + c.hd / 2 * kTable;
  return ledger;
}

}  // namespace tpb
