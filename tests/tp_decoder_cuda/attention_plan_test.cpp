// The decode-attention launch shape (host arithmetic, runs without a GPU):
// every split non-empty, chunks within shared memory, enough blocks to fill
// the GPU when the context allows, and invalid shapes refused.
#include "tp_decoder/cuda/attention_plan.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace tpb::gpu {
namespace {

constexpr int kH100Sms = 132;

// A cache holding exactly the positions attended (n_ctx = positions).
AttentionShape shape(int batch, int q_heads, int kv_heads, int head_dim, int n_ctx) {
  return AttentionShape{batch, q_heads, kv_heads, head_dim, n_ctx};
}

AttentionPlan plan_full(const AttentionShape& s, int sm_count) { return plan_attention(s, s.positions, sm_count); }

// Invariants every plan must satisfy, whatever the heuristic chooses (n_ctx = s.positions).
void expect_valid(const AttentionShape& s, const AttentionPlan& p) {
  const int n_ctx = s.positions;
  const int group = s.q_heads / s.kv_heads;
  EXPECT_GT(p.chunk, 0);
  EXPECT_EQ(p.chunk % kAttentionChunkQuantum, 0);
  EXPECT_LT(static_cast<long long>(p.num_splits - 1) * p.chunk, n_ctx) << "last split would be empty";
  EXPECT_GE(static_cast<long long>(p.num_splits) * p.chunk, n_ctx) << "positions left uncovered";
  EXPECT_EQ(p.smem_bytes, static_cast<std::size_t>(group) * (s.head_dim + p.chunk + 2) * sizeof(float));
  EXPECT_LE(p.smem_bytes, kAttentionSmemBytes);
  const std::size_t rows = p.num_splits > 1 ? static_cast<std::size_t>(s.batch) * s.q_heads * p.num_splits : 0;
  EXPECT_EQ(p.partial_stat_floats, rows);
  EXPECT_EQ(p.partial_out_floats, rows * s.head_dim);
}

// The plan of shape(batch, q_heads, kv_heads, head_dim, n_ctx) on an H100, checked against the invariants.
AttentionPlan valid_plan(int batch, int q_heads, int kv_heads, int head_dim, int n_ctx) {
  const AttentionShape s = shape(batch, q_heads, kv_heads, head_dim, n_ctx);
  const AttentionPlan p = plan_full(s, kH100Sms);
  expect_valid(s, p);
  return p;
}

TEST(AttentionPlan, Llama8bBatch1LongContextSplitsToFillTheGpu) {
  // 8 kv heads give 8 blocks; two per SM wants ceil(264 / 8) = 33 splits:
  // ceil(4097 / 33) = 125 positions, rounded up to 128, so 33 chunks.
  const AttentionPlan p = valid_plan(1, 32, 8, 128, 4097);
  EXPECT_EQ(p.chunk, 128);
  EXPECT_EQ(p.num_splits, 33);
  EXPECT_EQ(p.smem_bytes, (4u * 128 + 4 * 128 + 8) * sizeof(float));
}

TEST(AttentionPlan, LargeBatchSplitsLittle) {
  // 32 x 8 = 256 blocks already: 2 splits of ceil(513 / 2) = 257 -> 288 positions.
  const AttentionPlan p = valid_plan(32, 32, 8, 128, 513);
  EXPECT_EQ(p.chunk, 288);
  EXPECT_EQ(p.num_splits, 2);
}

TEST(AttentionPlan, ShortContextIsOneChunkSizedToFit) {
  const AttentionPlan p = valid_plan(1, 32, 8, 128, 10);
  EXPECT_EQ(p.num_splits, 1);
  EXPECT_EQ(p.chunk, 32);
  EXPECT_EQ(p.partial_out_floats, 0u);
}

TEST(AttentionPlan, NoChunkBelowTheMinimumWhenTheContextIsShort) {
  // 264 splits wanted, but 1000 positions give chunks of at least 64.
  const AttentionPlan p = valid_plan(1, 8, 1, 64, 1000);
  EXPECT_EQ(p.chunk, kMinAttentionChunk);
  EXPECT_EQ(p.num_splits, 16);
}

TEST(AttentionPlan, WideGroupsShrinkTheChunkToFitSharedMemory) {
  // 64 q heads on one kv head (70B at TP-8 has 8): q takes 64 x 128 floats,
  // leaving room for 3968 / 64 = 62 -> 32 positions per chunk.
  const AttentionPlan p = valid_plan(1, 64, 1, 128, 131073);
  EXPECT_EQ(p.chunk, 32);
  EXPECT_EQ(p.num_splits, 4097);
}

TEST(AttentionPlan, InvariantsHoldOverAGridOfShapes) {
  for (int batch : {1, 3, 32})
    for (int kv : {1, 2, 8})
      for (int group : {1, 4, 7})
        for (int head_dim : {16, 64, 128, 256})
          for (int n_ctx : {1, 31, 32, 33, 513, 4097, 32769}) {
            const AttentionShape s = shape(batch, kv * group, kv, head_dim, n_ctx);
            SCOPED_TRACE(::testing::Message()
                         << "b" << batch << "_kv" << kv << "_g" << group << "_d" << head_dim << "_c" << n_ctx);
            expect_valid(s, plan_full(s, kH100Sms));
          }
}

TEST(AttentionPlan, RefusesInvalidShapes) {
  EXPECT_THROW(plan_full(shape(1, 12, 8, 128, 100), kH100Sms), Error);  // 8 does not divide 12
  EXPECT_THROW(plan_full(shape(1, 8, 8, 127, 100), kH100Sms), Error);   // odd head_dim
  EXPECT_THROW(plan_full(shape(1, 8, 8, 258, 100), kH100Sms), Error);   // head_dim above 256
  EXPECT_THROW(plan_full(shape(1, 64, 1, 256, 100), kH100Sms), Error);  // q of the group overflows smem
  EXPECT_THROW(plan_attention(AttentionShape{1, 8, 8, 128, 99}, 100, kH100Sms), Error);  // n_ctx > positions
  EXPECT_THROW(plan_full(shape(1, 8, 8, 128, 0), kH100Sms), Error);
  EXPECT_THROW(plan_full(shape(1, 8, 8, 128, 100), 0), Error);
}

}  // namespace
}  // namespace tpb::gpu
