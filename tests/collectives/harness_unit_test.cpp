// Pieces of the sweep harness that need no peers: size lists, the summary of
// per-rank samples, datatype encoding, the collective specs.
#include <gtest/gtest.h>

#include <vector>

#include "collectives/collective_spec.hpp"
#include "collectives/element_codec.hpp"
#include "collectives/sweep_harness.hpp"
#include "common/error.hpp"
#include "common/samples.hpp"

namespace tpb {
namespace {

TEST(SweepSizes, FactorAndStepFollowNcclTests) {
  EXPECT_EQ(sweep_sizes(8, 64, 2, 0), (std::vector<std::size_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes(8, 100, 4, 0), (std::vector<std::size_t>{8, 32}));
  EXPECT_EQ(sweep_sizes(10, 40, 2, 15), (std::vector<std::size_t>{10, 25, 40}));
  EXPECT_EQ(sweep_sizes(16, 16, 2, 0), (std::vector<std::size_t>{16}));
  EXPECT_THROW(sweep_sizes(64, 8, 2, 0), Error);
}

TEST(SummarizeTimes, SlowestRankPerIterationThenMedian) {
  // 3 iterations x 2 ranks, [iteration][rank]; per-iteration max: 5, 9, 4 -> median 5.
  const std::vector<double> time_us = {1, 5, 9, 2, 4, 3};
  const PointSummary s = summarize_times(time_us, 2, 1000, 1.5);
  EXPECT_DOUBLE_EQ(s.time_us, 5.0);
  // Rank medians: rank 0 {1,9,4} -> 4, rank 1 {5,2,3} -> 3.
  EXPECT_DOUBLE_EQ(s.rank_min_us, 3.0);
  EXPECT_DOUBLE_EQ(s.rank_max_us, 4.0);
  EXPECT_DOUBLE_EQ(s.rank_avg_us, 3.5);
  EXPECT_DOUBLE_EQ(s.algbw_GBps, 1000.0 / 5.0 / 1e3);
  EXPECT_DOUBLE_EQ(s.busbw_GBps, s.algbw_GBps * 1.5);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
}

TEST(BusFactor, MatchesNcclTestsFormulas) {
  for (int k : {1, 2, 4, 8}) {
    EXPECT_DOUBLE_EQ(all_reduce_spec().bus_factor(k), 2.0 * (k - 1) / k) << "k=" << k;
    EXPECT_DOUBLE_EQ(all_gather_spec().bus_factor(k), static_cast<double>(k - 1) / k) << "k=" << k;
  }
  // nccl-tests' size column: all-reduce counts the vector, all-gather the gathered output.
  EXPECT_EQ(all_reduce_spec().send_count(1000, 4, 4), 250u);
  EXPECT_EQ(all_gather_spec().send_count(1000, 4, 4), 62u);
  EXPECT_EQ(all_gather_spec().payload_bytes(62, 4, 4), 992u);
}

TEST(ElementCodec, WholeNumbersRoundTripExactlyInEveryDatatype) {
  for (DataType type : {DataType::f32, DataType::bf16, DataType::f16}) {
    std::vector<unsigned char> buffer(4 * 600);
    const std::int64_t limit = exact_integer_limit(type);
    std::size_t i = 0;
    for (std::int64_t v = -limit; v <= limit; v += std::max<std::int64_t>(1, limit / 256)) {
      store_element(buffer.data(), i % 600, type, static_cast<double>(v));
      EXPECT_EQ(load_element(buffer.data(), i % 600, type), static_cast<double>(v)) << to_string(type) << " " << v;
      ++i;
    }
  }
  // Known bit patterns: 1.0 and -2.0 in float16, 3.0 in bfloat16.
  std::uint16_t bits = 0;
  store_element(&bits, 0, DataType::f16, 1.0);
  EXPECT_EQ(bits, 0x3C00);
  store_element(&bits, 0, DataType::f16, -2.0);
  EXPECT_EQ(bits, 0xC000);
  store_element(&bits, 0, DataType::bf16, 3.0);
  EXPECT_EQ(bits, 0x4040);
}

TEST(CollectiveSpec, NamesAndUnknownNames) {
  EXPECT_EQ(&collective_spec_named("allreduce"), &all_reduce_spec());
  EXPECT_EQ(&collective_spec_named("all_gather"), &all_gather_spec());
  EXPECT_THROW(collective_spec_named("broadcast"), UsageError);
}

}  // namespace
}  // namespace tpb
