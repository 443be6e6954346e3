// bench_cpu_gemm's closing lines (batch_summary.cpp): per model and m, least,
// median and most of the kept kernel's and overlap's fractions over the
// shapes, and the median of their shape-by-shape ratio, not the ratio of the
// medians.
#include "tp_decoder/cpu/gemm_bench/batch_summary.hpp"

#include <gtest/gtest.h>

namespace tpb::gemm_bench {
namespace {

TEST(BatchSummary, NothingAddedPrintsNothing) { EXPECT_EQ(BatchSummary{}.format(), ""); }

TEST(BatchSummary, LeastMedianMostPerModelAndBatch) {
  BatchSummary summary;
  // m = 8 over three shapes: kept 0.6, 0.8, 0.7; overlap 0.8, 0.8, 0.5. The
  // ratios are 0.75, 1.0 and 1.4 (median 1.0), while the medians' ratio
  // would be 0.7 / 0.8 = 0.875.
  summary.add("model-b", 8, 0.6, 0.8);
  summary.add("model-b", 8, 0.8, 0.8);
  summary.add("model-b", 8, 0.7, 0.5);
  // m = 1 after m = 8, and two shapes: an even count takes the mean of the
  // middle two.
  summary.add("model-b", 1, 1.0, 1.0);
  summary.add("model-b", 1, 0.9, 1.2);
  summary.add("model-a", 16, 0.5, 0.625);
  const std::string expected =
      "# model-b: fractions of the limit as least / median / most over the shapes\n"
      "#   m shapes  kept               overlap            kept/overlap (median)\n"
      "#   1      2  0.900 0.950 1.000  1.000 1.100 1.200  0.875\n"
      "#   8      3  0.600 0.700 0.800  0.500 0.800 0.800  1.000\n"
      "# model-a: fractions of the limit as least / median / most over the shapes\n"
      "#   m shapes  kept               overlap            kept/overlap (median)\n"
      "#  16      1  0.500 0.500 0.500  0.625 0.625 0.625  0.800\n";
  EXPECT_EQ(summary.format(), expected);
}

}  // namespace
}  // namespace tpb::gemm_bench
