#pragma once
// How a GoogleTest binary ends, for ctest. GoogleTest exits 0 when tests were
// skipped, so ctest would list a GPU test that never ran as "Passed". Every
// GoogleTest ctest sets SKIP_RETURN_CODE 77, and the mains below return 77
// only when every test that ran was skipped: one failure beside a skip still
// fails the run, and one pass beside a skip still passes it.
#include <gtest/gtest.h>

namespace tpb::testing {

inline constexpr int kExitAllSkipped = 77;  // ctest's SKIP_RETURN_CODE

struct RunOutcome {
  bool failed = false;       // a test failed (or RUN_ALL_TESTS reported an error)
  bool all_skipped = false;  // tests ran and every one of them was skipped
};

inline RunOutcome outcome_of_run(int run_all_tests_result) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  RunOutcome outcome;
  outcome.failed = run_all_tests_result != 0 || unit.failed_test_count() > 0;
  outcome.all_skipped = !outcome.failed && unit.test_to_run_count() > 0 &&
                        unit.skipped_test_count() == unit.test_to_run_count();
  return outcome;
}

inline int exit_code_of(const RunOutcome& outcome) {
  if (outcome.failed) return 1;
  return outcome.all_skipped ? kExitAllSkipped : 0;
}

}  // namespace tpb::testing
