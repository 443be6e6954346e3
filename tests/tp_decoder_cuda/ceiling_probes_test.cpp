// The device ceilings a cuda calibration measures for `roofline`: every timed
// pass of the copy and of the step's GEMM gives one positive, finite rate.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/cuda_info.hpp"
#include "common/error.hpp"
#include "tp_decoder/cuda/d2d_copy.hpp"
#include "tp_decoder/cuda/gemm_rate.hpp"

namespace tpb {
namespace {

class CeilingProbes : public ::testing::Test {
 protected:
  void SetUp() override {
    const CudaInfo cuda = query_cuda_info();
    if (cuda.device_count == 0) GTEST_SKIP() << "no CUDA device visible: " << cuda.device_error;
  }
};

void expect_positive_finite(const std::vector<double>& rates, std::size_t passes) {
  ASSERT_EQ(rates.size(), passes);
  for (double rate : rates) EXPECT_TRUE(std::isfinite(rate) && rate > 0) << rate;
}

TEST_F(CeilingProbes, EveryGemmGivesAPositiveFiniteRate) {
  // Not square, so a swapped m, n or k would misname the operands' shapes.
  expect_positive_finite(measure_gemm_GFLOPs({.m = 256, .n = 512, .k = 128, .warmup = 1, .iters = 3}), 3);
}

TEST_F(CeilingProbes, EveryCopyGivesAPositiveFiniteRate) {
  expect_positive_finite(measure_d2d_copy_GBps({.bytes = std::size_t{8} << 20, .warmup = 1, .iters = 3}), 3);
}

TEST_F(CeilingProbes, AnEmptyGemmIsRefused) {
  EXPECT_THROW(measure_gemm_GFLOPs({.m = 0, .n = 16, .k = 16, .warmup = 0, .iters = 1}), Error);
}

}  // namespace
}  // namespace tpb
