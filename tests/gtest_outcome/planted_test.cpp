// Planted tests for the GoogleTest mains' exit codes: one test that skips, one
// that fails and one that passes. Never discovered as ctests of their own;
// check_outcome.cmake runs chosen subsets and checks what ctest would see.
#include <gtest/gtest.h>

TEST(Planted, Skips) { GTEST_SKIP() << "planted skip"; }

TEST(Planted, Fails) { FAIL() << "planted failure"; }

TEST(Planted, Passes) { SUCCEED(); }
