// NCCL sweeps where a GPU exists (skipped elsewhere): every datatype and both
// placements checked correct, and CUDA graph capture and replay. Runs at 1
// and 2 ranks; each rank needs its own device (NCCL refuses two ranks on one).
#include <gtest/gtest.h>
#include <mpi.h>

#include <numeric>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_communicator.hpp"
#include "collectives/sweep_harness.hpp"
#include "collectives/tp_sweep.hpp"
#include "common/cuda_info.hpp"
#include "mpi_bench/rank_context.hpp"

namespace tpb {
namespace {

// Every rank decides alike, or some ranks would wait in a collective forever.
bool every_rank_has_a_device() {
  const int devices = query_cuda_info().device_count;
  int local_rank = 0;
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  int mine = local_rank < devices ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

std::int64_t total(const std::vector<std::int64_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
}

class NcclSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!query_cuda_info().compiled_in) GTEST_SKIP() << "built without CUDA";
    if (!every_rank_has_a_device()) GTEST_SKIP() << "needs one visible GPU per rank";
    bootstrap_ranks(MPI_COMM_WORLD, /*use_gpu=*/true);
    world_ = make_communicator("nccl", MPI_COMM_WORLD);
  }
  std::unique_ptr<Communicator> world_;
};

TEST_F(NcclSweep, EveryDatatypeAndPlacementIsCorrectAtOddSizes) {
  for (DataType type : {DataType::f32, DataType::bf16, DataType::f16})
    for (const CollectiveSpec* spec : {&all_reduce_spec(), &all_gather_spec()}) {
      const int k = world_->size();
      SweepOptions options;
      options.type = type;
      for (std::size_t elements : {1, 3, 1023, 65537}) options.sizes_bytes.push_back(elements * element_size(type) * k);
      options.iters = 3;
      options.check_iters = 2;
      const TpSweep tp = run_tp_sweep(*world_, k, *spec, options);
      SCOPED_TRACE(spec->name + " " + to_string(type));
      EXPECT_EQ(total(tp.wrong), 0);
      EXPECT_EQ(total(tp.wrong_inplace), 0);
      for (const PointSummary& s : tp.out_of_place) EXPECT_GT(s.time_us, 0.0);
    }
}

TEST_F(NcclSweep, GraphCaptureAndReplayIsCorrectAndTimed) {
  SweepOptions options;
  options.sizes_bytes = {8, 4096, 1 << 20};
  options.iters = 5;
  options.graph_calls = 4;
  options.blocking = true;
  const SweepResult result = run_collective_sweep(*world_, all_reduce_spec(), options);
  for (const SweepPoint& point : result.points) {
    EXPECT_EQ(total(point.wrong) + total(point.wrong_inplace), 0);
    for (double t : point.time_us) EXPECT_GT(t, 0.0);
  }
}

TEST_F(NcclSweep, MpiCommunicatorUnderneathIsExposed) {
  int size = 0;
  MPI_Comm_size(mpi_comm_of(*world_), &size);
  EXPECT_EQ(size, world_->size());
  EXPECT_EQ(world_->backend_name(), "nccl");
}

}  // namespace
}  // namespace tpb
