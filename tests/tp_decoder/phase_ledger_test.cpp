// The per-phase cost ledger against hand counts, and the two quantities it
// must agree with elsewhere: the resident weights of the memory estimate and
// the weights read per step that the step runner reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "loopback_communicator.hpp"
#include "test_configs.hpp"
#include "tp_decoder/cpu/cpu_backend.hpp"
#include "tp_decoder/memory_estimate.hpp"
#include "tp_decoder/phase_ledger.hpp"
#include "tp_decoder/step_runner.hpp"

namespace tpb {
namespace {

using test::shipped_config;

const MemoryTypes kF32 = dtype_memory_types(ElementType::f32);
const MemoryTypes kBf16 = dtype_memory_types(ElementType::bf16);  // bf16 weights, KV and activations; f32 logits

// The weights and tables a rank of TP-`tp` holds: the memory estimate's
// weights term (without --check).
std::int64_t resident_bytes(const ModelConfig& config, int tp, const MemoryTypes& types) {
  MemorySetup setup;
  setup.types = types;
  setup.tp = tp;
  return memory_terms(config, setup).weights.fixed;
}

void expect_phase(const PhaseLedger& ledger, Phase phase, std::int64_t intervals, std::int64_t read,
                  std::int64_t written, std::int64_t flops, std::int64_t weight_read) {
  SCOPED_TRACE(phase_name(phase));
  const PhaseCost& p = ledger[phase];
  EXPECT_EQ(p.intervals, intervals);
  EXPECT_EQ(p.bytes_read, read);
  EXPECT_EQ(p.bytes_written, written);
  EXPECT_EQ(p.flops, flops);
  EXPECT_EQ(p.weight_bytes_read, weight_read);
}

TEST(PhaseLedger, Llama31_8bTp2ByHand) {
  // Llama-3.1-8B, TP-2, b = 4, c = 256 (t = 257 positions attended), f32. Rank 0's shard: hidden 4096,
  // 16 query heads and 4 KV heads of 128, intermediate 14336 / 2 = 7168, vocabulary 128256 / 2 = 64128,
  // 32 layers. A (4, 4096) f32 activation is 65,536 B.
  const PhaseLedger l = phase_ledger(shipped_config("llama-3.1-8b"), 2, 4, 256, kF32);
  // 4 token ids (16 B) and 4 embedding rows of 4096 f32.
  expect_phase(l, Phase::embedding, 1, 16 + 65'536, 65'536, 0, 65'536);
  // 2 · 32 + 1 norms, each the (4, 4096) residual and a 4096 gain read; per row 4 · 4096 + 4 flops.
  expect_phase(l, Phase::norm, 65, 65LL * (65'536 + 16'384), 65LL * 65'536, 65LL * 4 * (4 * 4096 + 4),
               65LL * 16'384);
  // Q|K|V rows (16 + 2 · 4) · 128 = 3072 by 4096, per layer: 3072 · 4096 · 4 B, the input, 4 · 3072 f32 out.
  expect_phase(l, Phase::qkv, 32, 32LL * (3072 * 4096 * 4 + 65'536), 32LL * 4 * 3072 * 4,
               32LL * 2 * 4 * 3072 * 4096, 32LL * 3072 * 4096 * 4);  // 1,612,709,888 B read, 3.22 GFLOP
  // RoPE rotates 4 · (16 + 4) · 128 = 10,240 values in place and reads 64 f32 frequencies; the KV write
  // copies 2 · 4 · 4 · 128 = 4096 values. Flops: 3 · 64 for the angles, 6 per pair (3 per value).
  expect_phase(l, Phase::rope_kv, 64, 32LL * (64 * 4 + 10'240 * 4 + 4096 * 4), 32LL * (10'240 * 4 + 4096 * 4),
               32LL * (3 * 64 + 3 * 10'240), 0);
  // Q (4 · 16 · 128 f32) and K, V of 4 heads × 257 positions × 128 for 4 sequences; per (sequence, query
  // head) 4 · 257 · 128 + 6 · 257 + 1 = 133,127 flops.
  expect_phase(l, Phase::attention, 32, 32LL * (4 * 16 * 128 * 4 + 2 * 4 * 4 * 257 * 128 * 4),
               32LL * 4 * 16 * 128 * 4, 32LL * 4 * 16 * 133'127, 0);  // 135,790,592 B read
  // O: 4096 rows by 16 · 128 = 2048 input columns.
  expect_phase(l, Phase::o_proj, 32, 32LL * (4096 * 2048 * 4 + 4 * 2048 * 4), 32LL * 65'536,
               32LL * 2 * 4 * 4096 * 2048, 32LL * 4096 * 2048 * 4);
  // 64 in-place all-reduces of 65,536 B; (2 − 1) adds per element.
  expect_phase(l, Phase::all_reduce, 64, 64LL * 65'536, 64LL * 65'536, 64LL * 4 * 4096, 0);
  expect_phase(l, Phase::residual, 64, 64LL * 2 * 65'536, 64LL * 65'536, 64LL * 4 * 4096, 0);
  // gate|up: 2 · 7168 = 14,336 rows by 4096.
  expect_phase(l, Phase::gate_up, 32, 32LL * (14'336 * 4096 * 4 + 65'536), 32LL * 4 * 14'336 * 4,
               32LL * 2 * 4 * 14'336 * 4096, 32LL * 14'336 * 4096 * 4);  // 7,518,289,920 B read, 15.0 GFLOP
  expect_phase(l, Phase::silu_mul, 32, 32LL * 4 * 14'336 * 4, 32LL * 4 * 7168 * 4, 32LL * 4 * 4 * 7168, 0);
  // down: 4096 rows by 7168 input columns.
  expect_phase(l, Phase::down, 32, 32LL * (4096 * 7168 * 4 + 4 * 7168 * 4), 32LL * 65'536,
               32LL * 2 * 4 * 4096 * 7168, 32LL * 4096 * 7168 * 4);
  // The LM head's 64,128 vocabulary rows by 4096, f32 logits.
  expect_phase(l, Phase::lm_head, 1, 64'128LL * 4096 * 4 + 65'536, 4 * 64'128 * 4, 2LL * 4 * 64'128 * 4096,
               64'128LL * 4096 * 4);  // 1,050,738,688 B read
  // This rank's 4 × 64,128 logits out, both ranks' in; argmax compares all 2 · 4 · 64,128 and writes 4 ids.
  expect_phase(l, Phase::all_gather, 1, 4 * 64'128 * 4, 2 * 4 * 64'128 * 4, 0, 0);
  expect_phase(l, Phase::argmax, 1, 2 * 4 * 64'128 * 4, 16, 2 * 4 * 64'128, 0);

  EXPECT_EQ(l.collectives.ar_bytes, 65'536);
  EXPECT_EQ(l.collectives.n_ar, 64);
  EXPECT_EQ(l.collectives.ag_bytes, 4 * 128'256 * 4);  // 2,052,096 B: the whole vocabulary, gathered
  EXPECT_EQ(l.collectives.n_ag, 1);

  // Weights per layer: 2 norms of 4096, QKV 3072 · 4096, O 4096 · 2048, gate|up 14,336 · 4096, down
  // 4096 · 7168 = 109,060,096 values; × 32, the final norm 4096, the LM-head shard 64,128 · 4096 and 4
  // embedding rows: 3,752,611,840 f32.
  constexpr std::int64_t layer = 2 * 4096 + 3072 * 4096 + 4096 * 2048 + 14'336 * 4096 + 4096 * 7168;
  static_assert(layer == 109'060'096);
  EXPECT_EQ(l.weight_bytes_per_step(), (32 * layer + 4096 + 64'128LL * 4096 + 4 * 4096) * 4);  // 15,010,447,360
  // Resident: the whole table (128,256 · 4096) in place of its 4 rows, and the RoPE table of 64 f32.
  const std::int64_t resident = resident_bytes(shipped_config("llama-3.1-8b"), 2, kF32);
  EXPECT_EQ(resident, (32 * layer + 4096 + 64'128LL * 4096 + 128'256LL * 4096) * 4 + 64 * 4);
  EXPECT_EQ(resident, 17'111'728'384);
  // The step's totals, as docs/TRANSFER.md quotes them.
  EXPECT_EQ(l.total().bytes_read, 15'184'320'528);
  EXPECT_EQ(l.total().bytes_written, 35'452'944);
  EXPECT_EQ(l.total().flops, 30'302'808'080);
}

TEST(PhaseLedger, TinyMqaReplicatesItsOneKvHeadByHand) {
  // tiny-mqa: hidden 64, intermediate 192, 3 layers, 8 query heads and 1 KV head of 8, vocabulary 512.
  // b = 3, c = 16 (t = 17), f32. A (3, 64) activation is 768 B.
  const ModelConfig mqa = shipped_config("tiny-mqa");
  // TP-2: 4 query heads and the one KV head (replicated: kv_heads 1 < k), intermediate 96, vocabulary 256.
  const PhaseLedger l = phase_ledger(mqa, 2, 3, 16, kF32);
  expect_phase(l, Phase::embedding, 1, 3 * 4 + 768, 768, 0, 768);
  expect_phase(l, Phase::norm, 7, 7 * (768 + 256), 7 * 768, 7 * 3 * (4 * 64 + 4), 7 * 256);
  // Q|K|V rows (4 + 2 · 1) · 8 = 48 by 64.
  expect_phase(l, Phase::qkv, 3, 3 * (48 * 64 * 4 + 768), 3 * 3 * 48 * 4, 3 * 2 * 3 * 48 * 64, 3 * 48 * 64 * 4);
  // RoPE: 3 · (4 + 1) · 8 = 120 values, 4 frequencies; KV write: 2 · 3 · 1 · 8 = 48 values.
  expect_phase(l, Phase::rope_kv, 6, 3 * (4 * 4 + 120 * 4 + 48 * 4), 3 * (120 * 4 + 48 * 4), 3 * (3 * 4 + 3 * 120),
               0);
  // Q: 3 · 4 · 8 f32; the one KV head: 2 · 3 · 17 · 8 f32. Per (sequence, query head) 4 · 17 · 8 + 6 · 17 + 1
  // = 647 flops.
  expect_phase(l, Phase::attention, 3, 3 * (3 * 4 * 8 * 4 + 2 * 3 * 17 * 8 * 4), 3 * 3 * 4 * 8 * 4,
               3 * 3 * 4 * 647, 0);  // 10,944 B read
  expect_phase(l, Phase::o_proj, 3, 3 * (64 * 32 * 4 + 3 * 32 * 4), 3 * 768, 3 * 2 * 3 * 64 * 32, 3 * 64 * 32 * 4);
  expect_phase(l, Phase::all_reduce, 6, 6 * 768, 6 * 768, 6 * 1 * 3 * 64, 0);
  expect_phase(l, Phase::residual, 6, 6 * 2 * 768, 6 * 768, 6 * 3 * 64, 0);
  expect_phase(l, Phase::gate_up, 3, 3 * (192 * 64 * 4 + 768), 3 * 3 * 192 * 4, 3 * 2 * 3 * 192 * 64,
               3 * 192 * 64 * 4);
  expect_phase(l, Phase::silu_mul, 3, 3 * 3 * 192 * 4, 3 * 3 * 96 * 4, 3 * 4 * 3 * 96, 0);
  expect_phase(l, Phase::down, 3, 3 * (64 * 96 * 4 + 3 * 96 * 4), 3 * 768, 3 * 2 * 3 * 64 * 96, 3 * 64 * 96 * 4);
  expect_phase(l, Phase::lm_head, 1, 256 * 64 * 4 + 768, 3 * 256 * 4, 2 * 3 * 256 * 64, 256 * 64 * 4);
  expect_phase(l, Phase::all_gather, 1, 3 * 256 * 4, 2 * 3 * 256 * 4, 0, 0);
  expect_phase(l, Phase::argmax, 1, 2 * 3 * 256 * 4, 12, 2 * 3 * 256, 0);
  // Per layer 2 · 64 + 48 · 64 + 64 · 32 + 192 · 64 + 64 · 96 = 23,680 values; × 3, the final norm, the
  // LM-head shard 256 · 64 and 3 embedding rows: 87,680 f32.
  EXPECT_EQ(l.weight_bytes_per_step(), (3 * 23'680 + 64 + 256 * 64 + 3 * 64) * 4);  // 350,720
  EXPECT_EQ(resident_bytes(mqa, 2, kF32), (3 * 23'680 + 64 + 256 * 64 + 512 * 64) * 4 + 4 * 4);  // 481,040

  // TP-4: 2 query heads each, the KV head still whole on every rank, so K and V bytes do not shrink with k.
  const PhaseLedger l4 = phase_ledger(mqa, 4, 3, 16, kF32);
  EXPECT_EQ(l4[Phase::attention].bytes_read, 3 * (3 * 2 * 8 * 4 + 2 * 3 * 17 * 8 * 4));  // 10,368
  EXPECT_EQ(l4[Phase::rope_kv].bytes_written, l[Phase::rope_kv].bytes_written - 3 * 3 * 2 * 8 * 4);
  EXPECT_EQ(l4[Phase::qkv].weight_bytes_read, 3 * (2 + 2 * 1) * 8 * 64 * 4);
  EXPECT_EQ(l4[Phase::all_reduce].flops, 6 * 3 * 3 * 64);  // 3 peers' partials summed per element
  EXPECT_EQ(l4.weight_bytes_per_step(), 182'784);
}

TEST(PhaseLedger, Qwen2ReadsItsQkvBias) {
  // tiny-qwen2, TP-2: hidden 96, 2 query heads and 1 KV head of 24, so Q|K|V rows (2 + 2) · 24 = 96, and a
  // bias of 96; b = 2, bf16 weights and activations.
  const PhaseLedger l = phase_ledger(shipped_config("tiny-qwen2"), 2, 2, 5, kBf16);
  expect_phase(l, Phase::qkv, 2, 2 * ((96 * 96 + 96) * 2 + 2 * 96 * 2), 2 * 2 * 96 * 2,
               2 * (2 * 2 * 96 * 96 + 2 * 96), 2 * (96 * 96 + 96) * 2);
}

TEST(PhaseLedger, WithoutCollectivesArgmaxScoresItsOwnShard) {
  const ModelConfig mqa = shipped_config("tiny-mqa");
  const PhaseLedger l = phase_ledger(mqa, 2, 3, 16, kF32, false);
  expect_phase(l, Phase::all_reduce, 6, 0, 0, 0, 0);  // the intervals are marked, empty
  expect_phase(l, Phase::all_gather, 0, 0, 0, 0, 0);
  expect_phase(l, Phase::argmax, 1, 3 * 256 * 4, 12, 3 * 256, 0);
  EXPECT_EQ(l.collectives.n_ar, 0);
  EXPECT_EQ(l.collectives.n_ag, 0);
  EXPECT_EQ(l.weight_bytes_per_step(), phase_ledger(mqa, 2, 3, 16, kF32).weight_bytes_per_step());
}

TEST(PhaseLedger, TinyQwen2MoeTp2ByHand) {
  // tiny-qwen2-moe, TP-2, b = 3, c = 16, f32: hidden 96, 12 experts of width 32 (16 on the rank), top 4,
  // a shared expert of width 64 (32 on the rank), 2 layers routing to 5 and 7 distinct experts: 12 expert
  // shards read. A (3, 96) f32 activation is 1,152 B.
  const PhaseLedger l = phase_ledger(shipped_config("tiny-qwen2-moe"), 2, 3, 16, kF32, true, {5, 7});
  // Router: 2 GEMVs (12, 96), their (3, 12) logits read back for softmax (5 per expert), top-4 selection
  // (4 × 12 comparisons) without renormalisation, and the (12, 3) f32 weight table written.
  expect_phase(l, Phase::router, 2, 2 * (12 * 96 * 4 + 1152) + 2 * 3 * 12 * 4, 2 * 3 * 12 * 4 + 2 * 12 * 3 * 4,
               2 * 2 * 3 * 12 * 96 + 2 * 3 * (5 * 12 + 4 * 12), 2 * 12 * 96 * 4);
  // 12 routed experts (32 gate|up rows each) and 2 shared ones (64 rows each).
  expect_phase(l, Phase::gate_up, 14, 12 * 32 * 96 * 4 + 2 * 64 * 96 * 4 + 14 * 1152, 12 * 3 * 32 * 4 + 2 * 3 * 64 * 4,
               12 * 2 * 3 * 32 * 96 + 2 * 2 * 3 * 64 * 96, 12 * 32 * 96 * 4 + 2 * 64 * 96 * 4);  // 196,608 B of weights
  expect_phase(l, Phase::silu_mul, 14, 12 * 3 * 32 * 4 + 2 * 3 * 64 * 4, 12 * 3 * 16 * 4 + 2 * 3 * 32 * 4,
               12 * 4 * 3 * 16 + 2 * 4 * 3 * 32, 0);
  expect_phase(l, Phase::down, 14, 12 * 96 * 16 * 4 + 2 * 96 * 32 * 4 + 12 * 3 * 16 * 4 + 2 * 3 * 32 * 4,
               14 * 1152, 12 * 2 * 3 * 96 * 16 + 2 * 2 * 3 * 96 * 32, 12 * 96 * 16 * 4 + 2 * 96 * 32 * 4);
  // Shared gate: a (1, 96) GEMV per layer, its 3 logits read back, sigmoid (3 flops each), a (1, 3) f32 row.
  expect_phase(l, Phase::shared_gate, 2, 2 * (96 * 4 + 1152) + 2 * 3 * 4, 2 * 3 * 4 + 2 * 3 * 4,
               2 * 2 * 3 * 96 + 2 * 3 * 3, 2 * 96 * 4);
  // 14 outputs weighted in; each layer's first overwrites, the other 12 add (and read the sum).
  expect_phase(l, Phase::expert_combine, 14, 14 * (1152 + 3 * 4) + 12 * 1152, 14 * 1152, 14 * 288 + 12 * 288, 0);
  EXPECT_EQ(l.total().intervals, 87);  // 1 + 2 × 11 attention-side marks + 2 + 14 × 4 + 2 + 1 + 3

  // Read per layer: two norms, Q|K|V rows (2 + 2 · 1) · 24 = 96 and their bias, O (96, 48), the router, the
  // shared expert (64 and 32 rows) and its gate; then 12 expert shards of 3 · 16 · 96, the final norm, the LM
  // head's 192 rows and 3 embedding rows.
  const std::int64_t layer = 2 * 96 + 96 * 96 + 96 + 96 * 48 + 12 * 96 + 64 * 96 + 96 * 32 + 96;
  EXPECT_EQ(l.weight_bytes_per_step(), (2 * layer + 12 * 3 * 16 * 96 + 96 + 192 * 96 + 3 * 96) * 4);
  // Held: the 24 - 12 expert shards not read, 3 × 16 × 96 f32 each, beside what is read.
  EXPECT_EQ(resident_bytes(shipped_config("tiny-qwen2-moe"), 2, kF32) - l.weight_bytes_per_step(),
            (384 - 3) * 96 * 4 + 12 * 3 * 16 * 96 * 4 + 12 * 4);
  EXPECT_THROW(phase_ledger(shipped_config("tiny-qwen2-moe"), 2, 3, 16, kF32), UsageError);  // routing not given
  // One sequence's top 4 touches exactly 4 experts; 3 sequences at most 12.
  EXPECT_NO_THROW(phase_ledger(shipped_config("tiny-qwen2-moe"), 2, 1, 0, kF32, true, {4, 4}));
  EXPECT_THROW(phase_ledger(shipped_config("tiny-qwen2-moe"), 2, 1, 0, kF32, true, {4, 5}), UsageError);
  EXPECT_THROW(phase_ledger(shipped_config("tiny-qwen2-moe"), 2, 3, 0, kF32, true, {3, 12}), UsageError);
}

TEST(PhaseLedger, RefusesADegreeThatDoesNotFit) {
  EXPECT_THROW(phase_ledger(shipped_config("llama-3.1-8b"), 3, 1, 0, kF32), UsageError);
}

struct LedgerShape {
  std::string config;
  int tp;
  int batch;
  int context;
  bool bf16;
};

std::string shape_name(const testing::TestParamInfo<LedgerShape>& info) {
  const LedgerShape& s = info.param;
  std::string name = s.config + "_k" + std::to_string(s.tp) + "_b" + std::to_string(s.batch) + "_c" +
                     std::to_string(s.context) + (s.bf16 ? "_bf16" : "_f32");
  for (char& ch : name)
    if (ch == '-' || ch == '.') ch = '_';
  return name;
}

class LedgerAgreement : public testing::TestWithParam<LedgerShape> {};

// Resident bytes are, at TP-1, every parameter; the read bytes are the
// phases' weight bytes summed.
TEST_P(LedgerAgreement, ResidentIsTheEstimateAndEveryParameter) {
  const LedgerShape& s = GetParam();
  const ModelConfig config = shipped_config(s.config);
  const MemoryTypes types = s.bf16 ? kBf16 : kF32;
  // A sparse layer's worst case: every sequence routes to experts no other chose.
  const int touched = std::min(config.moe.num_experts, s.batch * config.moe.experts_per_token);
  const std::vector<int> experts(config.is_moe() ? static_cast<std::size_t>(config.num_layers) : 0, touched);
  const PhaseLedger l = phase_ledger(config, s.tp, s.batch, s.context, types, true, experts);

  if (s.tp == 1 && !config.tie_word_embeddings) {  // TP-1 holds every parameter once, and the RoPE table
    EXPECT_EQ(resident_bytes(config, s.tp, types),
              parameter_count(config) * static_cast<std::int64_t>(element_size(types.weight)) + config.head_dim / 2 * 4);
  }

  const std::int64_t activation = static_cast<std::int64_t>(element_size(types.activation));
  // k = 1 has no collective: a group of one issues none.
  const bool peers = s.tp > 1;
  EXPECT_EQ(l.collectives.ar_bytes, peers ? std::int64_t{s.batch} * config.hidden_size * activation : 0);
  EXPECT_EQ(l.collectives.n_ar, peers ? 2 * config.num_layers : 0);
  EXPECT_EQ(l.collectives.ag_bytes, peers ? std::int64_t{s.batch} * config.vocab_size * 4 : 0);
  // One per timeline mark of the step: 11 per layer around attention, 1 for
  // the MLP's norm... a dense MLP 3, a sparse one its router, 4 per expert
  // run and the shared gate; then the final norm, the LM head, the all-gather
  // (k > 1) and argmax.
  const std::int64_t shared = config.moe.shared_expert_intermediate_size ? 1 : 0;
  const std::int64_t mlp_marks = config.is_moe() ? 1 + 4 * (touched + shared) + shared : 3;
  EXPECT_EQ(l.total().intervals, 1 + (11 + mlp_marks) * config.num_layers + (peers ? 4 : 3));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, LedgerAgreement,
    testing::Values(LedgerShape{"llama-3.1-8b", 1, 1, 0, false}, LedgerShape{"llama-3.1-8b", 2, 4, 256, false},
                    LedgerShape{"llama-3.1-8b", 8, 32, 4096, true}, LedgerShape{"tiny-mqa", 1, 3, 16, false},
                    LedgerShape{"tiny-mqa", 2, 3, 16, false}, LedgerShape{"tiny-mqa", 8, 5, 100, true},
                    LedgerShape{"tiny-qwen2", 2, 2, 5, false}, LedgerShape{"tiny-qwen2", 4, 1, 0, true},
                    LedgerShape{"llama-3.2-1b", 2, 8, 1024, false}, LedgerShape{"tiny-mixtral", 2, 3, 16, false},
                    LedgerShape{"tiny-qwen2-moe", 4, 1, 0, true}, LedgerShape{"mixtral-8x7b", 8, 16, 4096, true},
                    LedgerShape{"qwen1.5-moe-a2.7b", 2, 4, 512, false}),
    shape_name);

// One timed TP-2 step (b = 3, c = 16) of `config` on the cpu backend through a one-process group.
StepTerms tp2_step_on_cpu(const ModelConfig& config) {
  const std::unique_ptr<Backend> backend = make_cpu_backend();
  test::CallLog log;
  test::LoopbackCommunicator group(2, log);
  StepOptions options;
  options.warmup = 0;
  options.iters = 1;
  return run_step_point(*backend, &group, config, StepPoint{2, 3, 16}, options);
}

TEST(PhaseLedger, StepRunnerReportsTheLedgersWeightBytes) {
  const ModelConfig mqa = shipped_config("tiny-mqa");
  const StepTerms terms = tp2_step_on_cpu(mqa);
  const PhaseLedger l = phase_ledger(mqa, 2, 3, 16, kF32);
  EXPECT_EQ(terms.weight_bytes_per_step, l.weight_bytes_per_step());
  EXPECT_EQ(terms.ar_bytes, l.collectives.ar_bytes);
  EXPECT_EQ(terms.n_ar, l.collectives.n_ar);
}

TEST(PhaseLedger, StepRunnerReportsTheTouchedExpertsTheLedgerCounts) {
  // A real TP-2 step of tiny-qwen2-moe: the ledger, given the experts the step touched, reads what the step reports.
  const ModelConfig moe = shipped_config("tiny-qwen2-moe");
  const StepTerms terms = tp2_step_on_cpu(moe);
  ASSERT_EQ(terms.experts_touched.size(), 2u);
  std::vector<int> counts;
  for (const std::vector<int>& layer : terms.experts_touched) {
    EXPECT_TRUE(std::is_sorted(layer.begin(), layer.end()));
    EXPECT_GE(layer.size(), 4u);   // one sequence's top 4 at least
    EXPECT_LE(layer.size(), 12u);  // 3 sequences × 4, and no more than the experts
    counts.push_back(static_cast<int>(layer.size()));
  }
  const PhaseLedger l = phase_ledger(moe, 2, 3, 16, kF32, true, counts);
  EXPECT_EQ(terms.weight_bytes_per_step, l.weight_bytes_per_step());
  EXPECT_EQ(terms.n_ar, 2 * moe.num_layers);  // a sparse layer keeps two all-reduces
}

}  // namespace
}  // namespace tpb
