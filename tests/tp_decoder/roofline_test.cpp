// The read probes of the matmul limit: the four-stream one reads the array in
// runs side by side, so every float must still be summed once, whatever the
// count's place against the runs; the one-stream one too (roofline.cpp).
#include <gtest/gtest.h>

#include <cstdint>
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

}  // namespace
}  // namespace tpb
