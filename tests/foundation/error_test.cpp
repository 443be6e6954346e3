#include <gtest/gtest.h>

#include "common/error.hpp"

namespace tpb {
namespace {

TEST(Error, OneLineNamesLibraryCodeRankHostAndPlace) {
  set_error_context(3, "node7");
  try {
    throw_error("NCCL", 2, "unhandled system error", "/src/collectives/nccl.cu", 42);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.one_line(), "tpbench: error: [rank 3 on node7] NCCL 2: unhandled system error at nccl.cu:42");
    EXPECT_EQ(e.one_line().find('\n'), std::string::npos);
    EXPECT_EQ(e.rank(), 3);
    EXPECT_EQ(e.library(), "NCCL");
  }
}

TEST(Error, TpbCheckThrowsOnlyWhenFalse) {
  EXPECT_NO_THROW(TPB_CHECK(1 + 1 == 2, "arithmetic"));
  EXPECT_THROW(TPB_CHECK(1 + 1 == 3, "arithmetic"), Error);
}

}  // namespace
}  // namespace tpb
