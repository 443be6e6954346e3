// main() for single-process GoogleTest binaries: exit 77 when every test that
// ran was skipped (see gtest_outcome.hpp), so ctest shows the skip.
#include <gtest/gtest.h>

#include "tests/gtest_outcome.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  return tpb::testing::exit_code_of(tpb::testing::outcome_of_run(result));
}
