// main() for multi-rank GoogleTest binaries: every rank runs every test,
// only rank 0 prints, and the exit code is the same on every rank: 1 when a
// test failed on any rank, 77 (skipped, see gtest_outcome.hpp) when every
// rank skipped every test it ran, 0 otherwise.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "tests/gtest_outcome.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const tpb::testing::RunOutcome local = tpb::testing::outcome_of_run(RUN_ALL_TESTS());
  int local_flags[2] = {local.failed ? 1 : 0, local.all_skipped ? 1 : 0};
  int any_failed = 0;
  int every_rank_skipped = 0;
  MPI_Allreduce(&local_flags[0], &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&local_flags[1], &every_rank_skipped, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0 && any_failed && !local.failed) std::fprintf(stderr, "a test failed on another rank\n");
  MPI_Finalize();
  tpb::testing::RunOutcome job;
  job.failed = any_failed != 0;
  job.all_skipped = !job.failed && every_rank_skipped != 0;
  return tpb::testing::exit_code_of(job);
}
