// The sweep harness on real peers (run at 2 and 4 ranks): every placement at
// odd element counts is checked correct, a corrupting communicator is caught,
// TP groups are split as documented, host buffers start on 64-byte boundaries,
// and the world-level sweep keeps every sample of every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_communicator.hpp"
#include "collectives/sweep_harness.hpp"
#include "collectives/tp_sweep.hpp"
#include "common/error.hpp"
#include "delegating_communicator.hpp"

namespace tpb {
namespace {

using test::DelegatingCommunicator;

// Odd element counts: not multiples of any SIMD width or of the rank count.
SweepOptions odd_size_options(int k) {
  SweepOptions options;
  for (std::size_t elements : {1, 3, 7, 13, 1023, 4099}) options.sizes_bytes.push_back(elements * 4 * k);
  options.iters = 3;
  options.warmup_iters = 1;
  options.check_iters = 2;
  return options;
}

std::int64_t total(const std::vector<std::int64_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
}

class HarnessOnGroups : public ::testing::TestWithParam<const CollectiveSpec*> {};

TEST_P(HarnessOnGroups, EveryPlacementIsCorrectAtOddSizesForEveryGroupSize) {
  const CollectiveSpec& spec = *GetParam();
  const auto world = make_communicator("mpi", MPI_COMM_WORLD);
  for (int k : tp_degrees_for(world->size())) {
    const auto group = split_into_tp_groups(*world, k);
    const SweepOptions options = odd_size_options(k);
    const SweepResult result = run_collective_sweep(*group, spec, options);
    ASSERT_EQ(result.points.size(), options.sizes_bytes.size());
    for (const SweepPoint& point : result.points) {
      SCOPED_TRACE(spec.name + " k=" + std::to_string(k) + " count=" + std::to_string(point.count));
      EXPECT_EQ(total(point.wrong), 0);
      EXPECT_EQ(total(point.wrong_inplace), 0);
      ASSERT_EQ(point.time_us.size(), static_cast<std::size_t>(options.iters * k));
      EXPECT_TRUE(std::all_of(point.time_us.begin(), point.time_us.end(), [](double t) { return t > 0.0; }));
      EXPECT_EQ(point.bytes, spec.payload_bytes(point.count, 4, k));
      EXPECT_EQ(point.out_of_place.time_us,
                summarize_times(point.time_us, k, point.bytes, result.bus_factor).time_us);
    }
    EXPECT_EQ(result.points[1].count, spec.name == "all_reduce" ? 3u * k : 3u);
  }
}

INSTANTIATE_TEST_SUITE_P(Collectives, HarnessOnGroups, ::testing::Values(&all_reduce_spec(), &all_gather_spec()),
                         [](const auto& param_info) { return param_info.param->name; });

// Delegates to MPI but damages one element of every all-reduce result on the
// last rank: the check must notice, or it could not fail.
class CorruptingCommunicator final : public DelegatingCommunicator {
 public:
  using DelegatingCommunicator::DelegatingCommunicator;
  std::string backend_name() const override { return "corrupting"; }
  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle s) override {
    DelegatingCommunicator::all_reduce(send, recv, count, type, s);
    if (rank() == size() - 1) static_cast<float*>(recv)[count / 2] += 1.0f;
  }
};

TEST(Harness, CheckCatchesOneDamagedElementPerCall) {
  CorruptingCommunicator broken(make_communicator("mpi", MPI_COMM_WORLD));
  SweepOptions options = odd_size_options(1);
  options.check_iters = 3;
  const SweepResult result = run_collective_sweep(broken, all_reduce_spec(), options);
  for (const SweepPoint& point : result.points) {
    // One damaged element per checked call on the last rank only, both placements.
    EXPECT_EQ(point.wrong.back(), options.check_iters);
    EXPECT_EQ(point.wrong_inplace.back(), options.check_iters);
    EXPECT_EQ(total(point.wrong), options.check_iters);
  }
}

// Delegates to MPI, hands out a work stream of its own, and records the stream
// of every host copy and collective: the harness must order its copies on the
// stream its collectives run on (on NCCL, a copy on another stream may still be
// in flight when a collective on a non-blocking work stream reads the buffer).
class StreamRecordingCommunicator final : public DelegatingCommunicator {
 public:
  using DelegatingCommunicator::DelegatingCommunicator;
  std::string backend_name() const override { return "stream-recording"; }
  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle s) override {
    collective_streams.push_back(s);
    DelegatingCommunicator::all_reduce(send, recv, count, type, s);
  }
  void all_gather(const void* send, void* recv, std::size_t count, DataType type, StreamHandle s) override {
    collective_streams.push_back(s);
    DelegatingCommunicator::all_gather(send, recv, count, type, s);
  }
  void copy_from_host(void* d, const void* s, std::size_t b, StreamHandle st) override {
    copy_streams.push_back(st);
    DelegatingCommunicator::copy_from_host(d, s, b, st);
  }
  void copy_to_host(void* d, const void* s, std::size_t b, StreamHandle st) override {
    copy_streams.push_back(st);
    DelegatingCommunicator::copy_to_host(d, s, b, st);
  }
  StreamHandle create_stream() override { return &work_stream_; }

  std::vector<StreamHandle> copy_streams;
  std::vector<StreamHandle> collective_streams;
  StreamHandle work_stream() { return &work_stream_; }

 private:
  int work_stream_ = 0;  // its address is the stream's handle
};

TEST(Harness, HostCopiesRunOnTheCollectivesStream) {
  StreamRecordingCommunicator recorder(make_communicator("mpi", MPI_COMM_WORLD));
  const SweepOptions options = odd_size_options(1);
  const SweepResult result = run_collective_sweep(recorder, all_reduce_spec(), options);
  for (const SweepPoint& point : result.points) EXPECT_EQ(total(point.wrong) + total(point.wrong_inplace), 0);
  // Per point and placement, check_iters checks of one or two copies in and one out.
  ASSERT_GE(recorder.copy_streams.size(), 2 * options.sizes_bytes.size() * options.check_iters * 2);
  ASSERT_FALSE(recorder.collective_streams.empty());
  for (StreamHandle s : recorder.copy_streams) EXPECT_EQ(s, recorder.work_stream());
  for (StreamHandle s : recorder.collective_streams) EXPECT_EQ(s, recorder.work_stream());
}

// Open MPI's out-of-place all-reduce of 4 KiB takes about twice as long when
// the receive buffer starts 8 or 16 B past the send buffer modulo 4 KiB
// (docs/SWEEP.md). Buffers on 64-byte boundaries are always a multiple of
// 64 B apart, outside that window, so the sweep never measures it by accident.
TEST(HostMemory, BuffersStartOn64ByteBoundariesWhateverTheirSize) {
  const auto comm = make_communicator("mpi", MPI_COMM_WORLD);
  for (std::size_t bytes : {std::size_t{1}, std::size_t{12}, std::size_t{4096}, std::size_t{4099 * 4}}) {
    void* send = comm->allocate(bytes);
    void* recv = comm->allocate(bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(send) % 64, 0u) << bytes << " B";
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(recv) % 64, 0u) << bytes << " B";
    comm->release(recv);
    comm->release(send);
  }
}

TEST(TpGroups, ConsecutiveRanksPerGroup) {
  const auto world = make_communicator("mpi", MPI_COMM_WORLD);
  for (int k : tp_degrees_for(world->size())) {
    const auto group = split_into_tp_groups(*world, k);
    EXPECT_EQ(group->size(), k);
    EXPECT_EQ(group->rank(), world->rank() % k);
    // The members are world ranks g*k .. g*k+k-1, in order.
    std::vector<int> members(static_cast<std::size_t>(k));
    const int mine = world->rank();
    MPI_Allgather(&mine, 1, MPI_INT, members.data(), 1, MPI_INT, mpi_comm_of(*group));
    for (int i = 0; i < k; ++i) EXPECT_EQ(members[static_cast<std::size_t>(i)], tp_group_of(mine, k) * k + i);
  }
  EXPECT_THROW(split_into_tp_groups(*world, world->size() + 1), UsageError);
  EXPECT_THROW(split_into_tp_groups(*world, 0), UsageError);
  if (world->size() == 4) {
    EXPECT_THROW(split_into_tp_groups(*world, 3), UsageError);
  }
}

// k = 1 has no collective: a group of one rank opens no communicator (the
// factory's count does not move), and its sum and gather are the rank's own data.
TEST(TpGroups, GroupOfOneOpensNoCommunicator) {
  const auto world = make_communicator("mpi", MPI_COMM_WORLD);
  const long before = communicators_opened();
  const auto group = split_into_tp_groups(*world, 1);
  EXPECT_EQ(communicators_opened(), before);
  EXPECT_EQ(group->size(), 1);
  EXPECT_EQ(group->rank(), 0);
  EXPECT_EQ(group->backend_name(), "mpi");
  EXPECT_EQ(group->memory_kind(), MemoryKind::host);

  const std::vector<float> mine = {1.5F, -2.0F, static_cast<float>(world->rank())};
  std::vector<float> in_place = mine;
  group->all_reduce(in_place.data(), in_place.data(), in_place.size(), DataType::f32, nullptr);
  EXPECT_EQ(in_place, mine);
  std::vector<float> reduced(mine.size());
  group->all_reduce(mine.data(), reduced.data(), mine.size(), DataType::f32, nullptr);
  EXPECT_EQ(reduced, mine);
  std::vector<float> gathered(mine.size());
  group->all_gather(mine.data(), gathered.data(), mine.size(), DataType::f32, nullptr);
  EXPECT_EQ(gathered, mine);
  group->barrier();
  EXPECT_EQ(group->split(0, 0)->size(), 1);
  EXPECT_EQ(communicators_opened(), before);

  // A group of more than one rank is one communicator more.
  if (world->size() > 1) {
    const auto all = split_into_tp_groups(*world, world->size());
    EXPECT_EQ(communicators_opened(), before + 1);
  }
}

TEST(Backends, UnknownNameIsAUsageError) {
  EXPECT_THROW(make_communicator("gloo", MPI_COMM_WORLD), UsageError);
#ifndef TPB_HAVE_CUDA
  EXPECT_THROW(make_communicator("nccl", MPI_COMM_WORLD), UsageError);
#endif
}

TEST(TpSweep, KeepsEverySampleOfEveryRankAndReportsTheSlowestGroup) {
  const auto world = make_communicator("mpi", MPI_COMM_WORLD);
  SweepOptions options;
  options.sizes_bytes = {8, 4096, 65536};
  options.iters = 4;
  options.warmup_iters = 1;
  for (int k : tp_degrees_for(world->size())) {
    const TpSweep tp = run_tp_sweep(*world, k, all_reduce_spec(), options);
    const int n = world->size();
    EXPECT_EQ(tp.n_groups, n / k);
    ASSERT_EQ(tp.out_of_place.size(), 3u);
    EXPECT_EQ(total(tp.wrong) + total(tp.wrong_inplace), 0);
    if (world->rank() != 0) {
      EXPECT_TRUE(tp.time_us.empty());
      continue;
    }
    ASSERT_EQ(tp.time_us.size(), static_cast<std::size_t>(3 * options.iters * n));
    ASSERT_EQ(tp.wrong_per_rank.size(), static_cast<std::size_t>(3 * n));
    for (std::size_t s = 0; s < 3; ++s) {
      // Recompute every group's figure from the stored samples: the reported one is the largest.
      double slowest = 0.0;
      for (int g = 0; g < tp.n_groups; ++g) {
        std::vector<double> columns;
        for (int i = 0; i < options.iters; ++i)
          for (int r = g * k; r < g * k + k; ++r)
            columns.push_back(tp.time_us[(s * options.iters + static_cast<std::size_t>(i)) * n + r]);
        slowest = std::max(slowest, summarize_times(columns, k, tp.bytes[s], tp.bus_factor).time_us);
      }
      EXPECT_DOUBLE_EQ(tp.out_of_place[s].time_us, slowest);
      EXPECT_DOUBLE_EQ(tp.out_of_place[s].busbw_GBps, tp.out_of_place[s].algbw_GBps * 2.0 * (k - 1) / k);
    }
  }
}

}  // namespace
}  // namespace tpb
