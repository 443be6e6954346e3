// The KV ledger against hand arithmetic: the paged-allocation worked example,
// Llama-3.1-70B's KV bytes per device under TP-k (replicated at k = 16), and
// capacity that says "does not fit" instead of going negative.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/error.hpp"
#include "predictor/kv_ledger.hpp"

namespace tpb {
namespace {

// Sequences retaining [1, 15, 16, 17, 31, 33] tokens at 1,024 B per token:
// 113 tokens, 115,712 B of payload whatever the block size.
const std::vector<std::int64_t> kWorkedLengths{1, 15, 16, 17, 31, 33};

TEST(PagedAllocation, WorkedExampleInBlocksOf16And8) {
  struct Case {
    int block_tokens;
    std::int64_t table_entries, allocated_bytes, tail_waste_bytes;
  };
  // Blocks of 16: 1 + 1 + 1 + 2 + 2 + 3 = 10, of 16 × 1,024 B each; of 8: 1 + 2 + 2 + 3 + 4 + 5 = 17.
  for (const Case c : {Case{16, 10, 163'840, 48'128}, Case{8, 17, 139'264, 23'552}}) {
    const PagedAllocation paged = page_sequences(kWorkedLengths, 1024, c.block_tokens);
    EXPECT_EQ(paged.payload_bytes, 115'712) << c.block_tokens;
    EXPECT_EQ(paged.table_entries, c.table_entries) << c.block_tokens;
    EXPECT_EQ(paged.allocated_bytes, c.allocated_bytes) << c.block_tokens;
    EXPECT_EQ(paged.tail_waste_bytes, c.tail_waste_bytes) << c.block_tokens;
    EXPECT_EQ(paged.metadata_bytes, 4 * c.table_entries) << c.block_tokens;  // 4 B an entry
  }
}

TEST(PagedAllocation, PerSequenceRows) {
  const PagedAllocation paged = page_sequences(kWorkedLengths, 1024, 16, 8);
  ASSERT_EQ(paged.sequences.size(), kWorkedLengths.size());
  // 17 tokens in blocks of 16: two blocks, the second holding one token.
  const PagedSequence& s = paged.sequences[3];
  EXPECT_EQ(s.tokens, 17);
  EXPECT_EQ(s.payload_bytes, 17 * 1024);
  EXPECT_EQ(s.allocated_bytes, 32 * 1024);
  EXPECT_EQ(s.tail_waste_bytes, 15 * 1024);
  EXPECT_EQ(s.table_entries, 2);
  // A sequence filling its blocks exactly wastes nothing.
  EXPECT_EQ(paged.sequences[2].tail_waste_bytes, 0);
  EXPECT_EQ(paged.metadata_bytes, 10 * 8);  // a stated entry size
}

TEST(PagedAllocation, EmptySequenceHoldsNoBlock) {
  const PagedAllocation paged = page_sequences({0}, 1024, 16);
  EXPECT_EQ(paged.table_entries, 0);
  EXPECT_EQ(paged.allocated_bytes, 0);
  EXPECT_EQ(paged.tail_waste_bytes, 0);
}

TEST(PagedAllocation, RefusesNegativeLengthsAndEmptyBlocks) {
  EXPECT_THROW(page_sequences({4, -1}, 1024, 16), Error);
  EXPECT_THROW(page_sequences({4}, 1024, 0), Error);
  EXPECT_THROW(page_sequences({INT64_MAX / 2}, 1024, 16), UsageError);  // overflow refused, not wrapped
}

// Llama-3.1-70B: 80 layers, 8 KV heads of 128, bf16.
constexpr KvCacheShape kLlama70B{80, 8, 128, 2};

TEST(KvBytesPerToken, Llama70BLogical) {
  EXPECT_EQ(kv_bytes_per_token(kLlama70B), 80 * 2 * 8 * 128 * 2);  // 327,680 B
}

struct TpCase {
  int k;
  int heads_per_device;
  int replication;
  std::int64_t bytes_per_device;
};

class Llama70BPerDevice : public ::testing::TestWithParam<TpCase> {};

TEST_P(Llama70BPerDevice, MatchesHandArithmetic) {
  const TpCase c = GetParam();
  const KvDeviceShare share = kv_device_share(kv_bytes_per_token(kLlama70B), kLlama70B.kv_heads, c.k);
  EXPECT_EQ(share.k, c.k);
  EXPECT_EQ(share.kv_heads_per_device, c.heads_per_device);
  EXPECT_EQ(share.kv_replication, c.replication);
  EXPECT_EQ(share.kv_bytes_per_token, c.bytes_per_device);
}

// Per device: 80 layers × 2 × heads per device × 128 × 2 B. At k = 16 the 8
// heads cannot split further: each rank holds one, each head twice.
INSTANTIATE_TEST_SUITE_P(TpDegrees, Llama70BPerDevice,
                         ::testing::Values(TpCase{1, 8, 1, 327'680}, TpCase{2, 4, 1, 163'840},
                                           TpCase{4, 2, 1, 81'920}, TpCase{8, 1, 1, 40'960},
                                           TpCase{16, 1, 2, 40'960}),
                         [](const ::testing::TestParamInfo<TpCase>& test_case) {
                           return "tp" + std::to_string(test_case.param.k);
                         });

TEST(KvDeviceShare, OverrideSplitsPerHead) {
  // --bytes-per-token 1024 for a model with 8 KV heads: 128 B per head per token.
  EXPECT_EQ(kv_device_share(1024, 8, 2).kv_bytes_per_token, 512);
  EXPECT_EQ(kv_device_share(1024, 8, 16).kv_bytes_per_token, 128);
  EXPECT_THROW(kv_device_share(1001, 8, 2), Error);  // not a whole number of bytes per head
  EXPECT_THROW(kv_device_share(1024, 8, 3), Error);  // k neither divides 8 nor is a multiple of it
}

TEST(DeviceCapacity, TokensFromWhatWeightsAndReserveLeave) {
  const DeviceMemoryLine line{.weight_bytes = 600, .fixed_bytes = 100, .kv_bytes_per_token = 64};
  // 1000 − 10 % reserve (100) − 600 − 100 = 200 B: 3 tokens of 64 B.
  const DeviceCapacity capacity = device_capacity(line, 1000, 10);
  EXPECT_TRUE(capacity.fits);
  EXPECT_EQ(capacity.reserve_bytes, 100);
  EXPECT_EQ(capacity.kv_budget_bytes, 200);
  EXPECT_EQ(capacity.kv_tokens_per_device, 3);
}

TEST(DeviceCapacity, WeightsAboveBudgetDoNotFitAndNeverGoNegative) {
  DeviceMemoryLine line{.weight_bytes = 2000, .kv_bytes_per_token = 64};
  const DeviceCapacity capacity = device_capacity(line, 1000, 0);
  EXPECT_FALSE(capacity.fits);
  EXPECT_EQ(capacity.kv_budget_bytes, 0);
  EXPECT_EQ(capacity.kv_tokens_per_device, 0);
  EXPECT_EQ(admissible_sequences(line, capacity, 16, 16), 0);
  // Room for the weights but not for one token: does not fit either.
  line.weight_bytes = 950;
  EXPECT_FALSE(device_capacity(line, 1000, 0).fits);
}

TEST(DeviceCapacity, RefusesAZeroBudget) {
  DeviceMemoryLine line;
  line.kv_bytes_per_token = 64;
  EXPECT_THROW(device_capacity(line, 0, 0), Error);
  EXPECT_THROW(device_capacity(line, 1000, 100), Error);
}

TEST(AdmissibleSequences, WholeBlocksPerSequence) {
  DeviceMemoryLine line;
  line.kv_bytes_per_token = 1024;
  const DeviceCapacity capacity = device_capacity(line, 1'000'000, 0);
  // 17 tokens: 2 blocks of 16 (32 KiB) or 3 of 8 (24 KiB) or 17 of 1 (17 KiB).
  EXPECT_EQ(admissible_sequences(line, capacity, 17, 16), 1'000'000 / (32 * 1024));
  EXPECT_EQ(admissible_sequences(line, capacity, 17, 8), 1'000'000 / (24 * 1024));
  EXPECT_EQ(admissible_sequences(line, capacity, 17, 1), 1'000'000 / (17 * 1024));
}

TEST(AdmissibleSequences, BlockOfOneIsTheLargestBatchWithinBudget) {
  DeviceMemoryLine line;
  line.weight_bytes = 10'000;
  line.fixed_bytes = 3'000;
  line.sequence_bytes = 700;
  line.kv_bytes_per_token = 96;
  line.scratch_bytes_per_token = 4;
  const std::int64_t budget = 250'000;
  const double reserve_pct = 5;
  const DeviceCapacity capacity = device_capacity(line, budget, reserve_pct);
  const std::int64_t tokens = 129;
  const std::int64_t n = admissible_sequences(line, capacity, tokens, 1);
  const auto device_bytes = [&](std::int64_t batch) {
    return line.weight_bytes + line.fixed_bytes +
           batch * (line.sequence_bytes + tokens * (line.kv_bytes_per_token + line.scratch_bytes_per_token));
  };
  ASSERT_GT(n, 0);
  EXPECT_LE(device_bytes(n), budget - capacity.reserve_bytes);
  EXPECT_GT(device_bytes(n + 1), budget - capacity.reserve_bytes);
}

}  // namespace
}  // namespace tpb
