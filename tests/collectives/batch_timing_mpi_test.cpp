// Batch timing in the sweep harness (run at 2 and 4 ranks): the one-shot and
// MPI communicators pass the batch check at odd sizes in every placement; a
// communicator that hands back the previous call's result is caught by it;
// the timing overhead is measured in both modes.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_communicator.hpp"
#include "collectives/sweep_harness.hpp"
#include "common/error.hpp"
#include "delegating_communicator.hpp"

namespace tpb {
namespace {

std::int64_t total(const std::vector<std::int64_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
}

SweepOptions batch_options(int k) {
  SweepOptions options;
  for (std::size_t elements : {1, 3, 17, 1023, 4099}) options.sizes_bytes.push_back(elements * 4 * k);
  options.iters = 3;
  options.warmup_iters = 1;
  options.check_iters = 2;
  options.timing = SweepTiming::batch;
  options.batch_calls = 7;
  return options;
}

class BatchTiming : public ::testing::TestWithParam<std::string> {};

TEST_P(BatchTiming, EveryPlacementPassesTheBatchCheckForEveryGroupSize) {
  const auto world = make_communicator(GetParam(), MPI_COMM_WORLD);
  for (int k : tp_degrees_for(world->size()))
    for (const CollectiveSpec* spec : {&all_reduce_spec(), &all_gather_spec()}) {
      const auto group = split_into_tp_groups(*world, k);
      const SweepOptions options = batch_options(k);
      const SweepResult result = run_collective_sweep(*group, *spec, options);
      EXPECT_GT(result.timing_overhead_us, 0.0);
      for (const SweepPoint& point : result.points) {
        SCOPED_TRACE(spec->name + " k=" + std::to_string(k) + " count=" + std::to_string(point.count));
        EXPECT_EQ(total(point.wrong), 0);
        EXPECT_EQ(total(point.wrong_inplace), 0);
        ASSERT_EQ(point.time_us.size(), static_cast<std::size_t>(options.iters * k));
        for (double t : point.time_us) EXPECT_GT(t, 0.0);
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Communicators, BatchTiming, ::testing::Values("mpi", "oneshot"),
                         [](const auto& param_info) { return param_info.param; });

// Delegates to MPI, except that a call with the same count as the call before
// it gets the last computed result back: the fault of a reused slot or a flag
// released too early. Checking one call on freshly filled inputs cannot see
// it when the previous call had the same inputs; the batch check must.
class StaleCommunicator final : public test::DelegatingCommunicator {
 public:
  using DelegatingCommunicator::DelegatingCommunicator;
  std::string backend_name() const override { return "stale"; }
  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle s) override {
    if (count == last_.size()) {
      std::memcpy(recv, last_.data(), count * sizeof(float));
      return;
    }
    DelegatingCommunicator::all_reduce(send, recv, count, type, s);
    last_.assign(static_cast<const float*>(recv), static_cast<const float*>(recv) + count);
  }

 private:
  std::vector<float> last_;
};

TEST(BatchCheck, CatchesAResultLeftOverFromThePreviousCall) {
  StaleCommunicator stale(make_communicator("mpi", MPI_COMM_WORLD));
  SweepOptions options = batch_options(1);
  options.sizes_bytes = {4 * 17, 4 * 4099};
  const SweepResult result = run_collective_sweep(stale, all_reduce_spec(), options);
  for (const SweepPoint& point : result.points) {
    SCOPED_TRACE("count " + std::to_string(point.count));
    EXPECT_GT(point.wrong[static_cast<std::size_t>(stale.rank())], 0);
    EXPECT_GT(point.wrong_inplace[static_cast<std::size_t>(stale.rank())], 0);
  }
}

TEST(SweepTimingNames, ParseAndPrint) {
  EXPECT_EQ(parse_sweep_timing("per-call"), SweepTiming::per_call);
  EXPECT_EQ(parse_sweep_timing("batch"), SweepTiming::batch);
  EXPECT_EQ(to_string(SweepTiming::per_call), "per-call");
  EXPECT_EQ(to_string(SweepTiming::batch), "batch");
  EXPECT_THROW(parse_sweep_timing("fast"), UsageError);
}

TEST(TimingOverhead, MeasuredInBothModes) {
  const auto world = make_communicator("mpi", MPI_COMM_WORLD);
  SweepOptions options;
  options.sizes_bytes = {8};
  options.iters = 50;
  const SweepResult per_call = run_collective_sweep(*world, all_reduce_spec(), options);
  options.timing = SweepTiming::batch;
  const SweepResult batch = run_collective_sweep(*world, all_reduce_spec(), options);
  // One clock read costs tens of nanoseconds; a loaded machine stretches it,
  // but never to the milliseconds of a broken measurement.
  EXPECT_GT(per_call.timing_overhead_us, 0.0);
  EXPECT_LT(per_call.timing_overhead_us, 1000.0);
  EXPECT_GT(batch.timing_overhead_us, 0.0);
  EXPECT_LT(batch.timing_overhead_us, 1000.0);
}

}  // namespace
}  // namespace tpb
