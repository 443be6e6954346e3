// The read probes of the matmul limit: the four-stream one reads the array in
// runs side by side, so every float must still be summed once, whatever the
// count's place against the runs; the one-stream one too, and the read with
// multiply-adds must take every float times every xs (roofline.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tp_decoder/cpu/roofline.hpp"

namespace tpb {
namespace {

// Small integers sum exactly in float up to 2^24, so any order of additions
// gives the one true sum.
TEST(Roofline, ReadProbeSumsEveryFloatOnce) {
  for (std::int64_t count : {0, 1, 7, 8, 31, 33, 32767, 32768, 32769, 65536 + 4096 + 13, 3 * 32768 + 8 * 1024 + 1}) {
    std::vector<float> v(static_cast<std::size_t>(count));
    double expected = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      v[static_cast<std::size_t>(i)] = static_cast<float>(i % 7 + 1);
      expected += static_cast<double>(i % 7 + 1);
    }
    EXPECT_EQ(static_cast<double>(sum_floats(v.data(), count)), expected) << "count " << count;
    EXPECT_EQ(static_cast<double>(sum_floats_one_stream(v.data(), count)), expected) << "count " << count;
  }
}

// Σ v · Σ xs stays below 2^24 for these counts (v ≤ 7, xs ≤ 3), so every
// partial sum is an exact integer; distinct xs catch a wrong or missed one.
TEST(Roofline, ReadWithFmasTakesEveryFloatTimesEveryFactor) {
  float xs[kMaxReadFmas];
  for (int f = 0; f < kMaxReadFmas; ++f) xs[f] = static_cast<float>(f % 3 + 1);
  for (std::int64_t count : {0, 1, 7, 8, 9, 32767, 32768, 32769, 65536 + 4096 + 13, 3 * 32768 + 8 * 1024 + 1}) {
    std::vector<float> v(static_cast<std::size_t>(count));
    double sum_v = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      v[static_cast<std::size_t>(i)] = static_cast<float>(i % 7 + 1);
      sum_v += static_cast<double>(i % 7 + 1);
    }
    double sum_xs = 0;
    for (int fmas = 1; fmas <= kMaxReadFmas; ++fmas) {
      sum_xs += static_cast<double>(xs[fmas - 1]);
      EXPECT_EQ(static_cast<double>(read_with_fmas(v.data(), count, xs, fmas)), sum_v * sum_xs)
          << "count " << count << ", " << fmas << " multiply-adds per vector";
    }
  }
}

TEST(Roofline, ReadWithFmasRefusesACountOutsideOneToTheMaximum) {
  const float v[8] = {}, xs[kMaxReadFmas + 1] = {};
  EXPECT_THROW(read_with_fmas(v, 8, xs, 0), std::invalid_argument);
  EXPECT_THROW(read_with_fmas(v, 8, xs, kMaxReadFmas + 1), std::invalid_argument);
}

}  // namespace
}  // namespace tpb
