#include <gtest/gtest.h>

#include <set>

#include "collectives/mpi_check.hpp"
#include "common/error.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/rank_context.hpp"

namespace tpb {
namespace {

TEST(RankMap, EveryRankHoldsTheSameConsistentMap) {
  const RankContext ctx = bootstrap_ranks(MPI_COMM_WORLD, /*use_gpu=*/false);
  ASSERT_EQ(static_cast<int>(ctx.rank_map.size()), ctx.size);
  EXPECT_EQ(ctx.rank_map[static_cast<std::size_t>(ctx.rank)].node, ctx.self.node);
  std::set<std::pair<std::string, int>> slots;
  for (int r = 0; r < ctx.size; ++r) {
    const auto& p = ctx.rank_map[static_cast<std::size_t>(r)];
    EXPECT_EQ(p.rank, r);
    EXPECT_EQ(p.gpu, -1);
    EXPECT_GE(p.omp_threads, 1);
    EXPECT_LT(p.local_rank, p.local_size);
    EXPECT_TRUE(slots.insert({p.node, p.local_rank}).second) << "two ranks share local slot " << p.local_rank;
  }
  // All test ranks run on this one node.
  EXPECT_EQ(ctx.self.local_size, ctx.size);
}

TEST(CollectiveValidation, AFailureOnOneRankFailsEveryRankWithItsMessage) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int failing = size - 1;
  try {
    validate_collectively(MPI_COMM_WORLD, [&] {
      if (rank == failing) throw UsageError("bad value on the last rank");
    });
    FAIL() << "rank " << rank << " did not see the failure";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "bad value on the last rank");
  }
  EXPECT_NO_THROW(validate_collectively(MPI_COMM_WORLD, [] {}));
}

// MPI_Error_string needs an initialised MPI, hence here and not in the unit tests.
TEST(Error, MpiCheckCarriesMpisOwnMessage) {
  try {
    MPI_CHECK(MPI_ERR_COUNT);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.library(), "MPI");
    EXPECT_EQ(e.code(), MPI_ERR_COUNT);
    EXPECT_FALSE(e.message().empty());
  }
}

}  // namespace
}  // namespace tpb
