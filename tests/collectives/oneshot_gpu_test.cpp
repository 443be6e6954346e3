// The CUDA one-shot communicator where a GPU exists (skipped elsewhere). Run
// at 2 ranks: with one GPU both processes share it (CUDA IPC between two
// processes on one device), which checks correctness only; its timing means
// nothing there. Exact sums at odd counts in both placements, chunked and
// not; float sums bit-identical on every rank; bf16; all-gather; calls
// enqueued back to back on changing inputs; the sweep harness in batch mode;
// and the communicator the tools get from the factory for device memory,
// swept per TP group as `mpi_bench sweep --collective oneshot` does.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "collectives/communicator_factory.hpp"
#include "collectives/element_codec.hpp"
#include "collectives/oneshot_cuda_communicator.hpp"
#include "collectives/sweep_harness.hpp"
#include "collectives/tp_sweep.hpp"
#include "common/cuda_info.hpp"
#include "whole_numbers.hpp"

namespace tpb {
namespace {

const std::vector<std::size_t> kOddCounts = {1, 3, 7, 15, 17, 63, 127, 129, 255, 257, 1023, 1025, 2049, 4095, 4099};
// 1 KiB: 256 floats per exchange, so 4099 elements take 17 chunks.
constexpr std::size_t kSmallCapacity = 1024;

// Every rank decides alike, or some ranks would wait in a collective forever.
bool every_rank_sees_a_device() {
  int mine = query_cuda_info().device_count > 0 ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

using test::whole_input;
using test::whole_sum;

class OneshotGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!every_rank_sees_a_device()) GTEST_SKIP() << "needs a visible GPU on every rank";
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // Ranks beyond the device count share devices: CUDA IPC allows it.
    ASSERT_EQ(cudaSetDevice(rank % query_cuda_info().device_count), cudaSuccess);
  }

  // Device copy of `host`, freed with the test.
  void* on_device(Communicator& comm, const std::vector<float>& host) {
    void* buffer = comm.allocate(host.size() * sizeof(float));
    comm.copy_from_host(buffer, host.data(), host.size() * sizeof(float), nullptr);
    buffers_.push_back({&comm, buffer});
    return buffer;
  }
  std::vector<float> to_host(Communicator& comm, const void* device, std::size_t count) {
    std::vector<float> host(count);
    comm.copy_to_host(host.data(), device, count * sizeof(float), nullptr);
    return host;
  }
  void TearDown() override {
    for (auto& [comm, buffer] : buffers_) comm->release(buffer);
  }

 private:
  std::vector<std::pair<Communicator*, void*>> buffers_;
};

TEST_F(OneshotGpu, AllReduceOfWholeNumbersIsExactInBothPlacements) {
  for (std::size_t capacity : {kDefaultOneshotCapacityBytes, kSmallCapacity}) {
    const auto comm = make_oneshot_cuda_communicator(MPI_COMM_WORLD, capacity);
    const int k = comm->size();
    int call = 0;
    for (bool in_place : {false, true})
      for (std::size_t count : kOddCounts) {
        SCOPED_TRACE("capacity " + std::to_string(capacity) + (in_place ? " in place" : " out of place") +
                     " count " + std::to_string(count));
        std::vector<float> input(count);
        for (std::size_t i = 0; i < count; ++i) input[i] = whole_input(comm->rank(), i, call);
        void* recv = on_device(*comm, std::vector<float>(count, -1.0f));
        void* send = in_place ? recv : on_device(*comm, input);
        if (in_place) comm->copy_from_host(recv, input.data(), count * sizeof(float), nullptr);
        comm->all_reduce(send, recv, count, DataType::f32, nullptr);
        comm->synchronize(nullptr);
        const std::vector<float> out = to_host(*comm, recv, count);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < count; ++i) wrong += out[i] != whole_sum(k, i, call) ? 1 : 0;
        EXPECT_EQ(wrong, 0u);
        ++call;
      }
  }
}

TEST_F(OneshotGpu, FloatSumIsBitIdenticalOnEveryRank) {
  const auto comm = make_oneshot_cuda_communicator(MPI_COMM_WORLD, kSmallCapacity);
  const std::size_t count = 4099;
  std::vector<float> input(count);
  for (std::size_t i = 0; i < count; ++i)
    input[i] = std::ldexp(0.1f + static_cast<float>(i % 97) * 0.37f, static_cast<int>(i % 41) - 20) *
               static_cast<float>(comm->rank() + 1);
  void* send = on_device(*comm, input);
  void* recv = on_device(*comm, std::vector<float>(count));
  comm->all_reduce(send, recv, count, DataType::f32, nullptr);
  comm->synchronize(nullptr);
  const std::vector<float> out = to_host(*comm, recv, count);
  std::vector<float> everyone(count * static_cast<std::size_t>(comm->size()));
  MPI_Allgather(out.data(), static_cast<int>(count), MPI_FLOAT, everyone.data(), static_cast<int>(count), MPI_FLOAT,
                MPI_COMM_WORLD);
  for (int r = 1; r < comm->size(); ++r)
    EXPECT_EQ(std::memcmp(everyone.data(), everyone.data() + static_cast<std::size_t>(r) * count,
                          count * sizeof(float)),
              0)
        << "rank " << r << " differs from rank 0";
}

TEST_F(OneshotGpu, Bf16WholeNumbersAreExact) {
  const auto comm = make_oneshot_cuda_communicator(MPI_COMM_WORLD);
  const std::size_t count = 1025;
  // bf16 holds whole numbers up to 256 exactly: inputs below 256 / ranks.
  const int limit = 256 / comm->size();
  std::vector<std::uint16_t> input(count), output(count);
  for (std::size_t i = 0; i < count; ++i)
    store_element(input.data(), i, DataType::bf16, static_cast<double>((i + static_cast<std::size_t>(comm->rank())) %
                                                                       static_cast<std::size_t>(limit)));
  void* buffer = comm->allocate(count * 2);
  comm->copy_from_host(buffer, input.data(), count * 2, nullptr);
  comm->all_reduce(buffer, buffer, count, DataType::bf16, nullptr);
  comm->synchronize(nullptr);
  comm->copy_to_host(output.data(), buffer, count * 2, nullptr);
  comm->release(buffer);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    double expected = 0.0;
    for (int r = 0; r < comm->size(); ++r)
      expected += static_cast<double>((i + static_cast<std::size_t>(r)) % static_cast<std::size_t>(limit));
    wrong += load_element(output.data(), i, DataType::bf16) != expected ? 1 : 0;
  }
  EXPECT_EQ(wrong, 0u);
}

TEST_F(OneshotGpu, AllGatherPlacesEveryRankInOrder) {
  const auto comm = make_oneshot_cuda_communicator(MPI_COMM_WORLD, kSmallCapacity);
  const std::size_t k = static_cast<std::size_t>(comm->size());
  for (bool in_place : {false, true})
    for (std::size_t count : {std::size_t{1}, std::size_t{257}, std::size_t{4099}}) {
      std::vector<float> input(count), initial(count * k, -1.0f);
      for (std::size_t i = 0; i < count; ++i) input[i] = whole_input(comm->rank(), i, 0);
      if (in_place) std::copy(input.begin(), input.end(), initial.begin() + static_cast<std::ptrdiff_t>(
                                                                              static_cast<std::size_t>(comm->rank()) * count));
      void* recv = on_device(*comm, initial);
      void* send = in_place ? static_cast<char*>(recv) + static_cast<std::size_t>(comm->rank()) * count * sizeof(float)
                            : on_device(*comm, input);
      comm->all_gather(send, recv, count, DataType::f32, nullptr);
      comm->synchronize(nullptr);
      const std::vector<float> out = to_host(*comm, recv, count * k);
      std::size_t wrong = 0;
      for (std::size_t r = 0; r < k; ++r)
        for (std::size_t i = 0; i < count; ++i)
          wrong += out[r * count + i] != whole_input(static_cast<int>(r), i, 0) ? 1 : 0;
      EXPECT_EQ(wrong, 0u) << (in_place ? "in place" : "out of place") << " count " << count;
    }
}

// Calls enqueued back to back with no host synchronization between them, each
// on new inputs into its own output: a slot overwritten before a peer read it
// leaves a wrong element in some output.
TEST_F(OneshotGpu, BackToBackCallsOnChangingInputs) {
  const auto comm = make_oneshot_cuda_communicator(MPI_COMM_WORLD, kSmallCapacity);
  const std::size_t count = 33;
  const int calls = 200;
  std::vector<float> inputs(count * calls);
  for (int c = 0; c < calls; ++c)
    for (std::size_t i = 0; i < count; ++i)
      inputs[static_cast<std::size_t>(c) * count + i] = whole_input(comm->rank(), i, c);
  auto* send = static_cast<float*>(on_device(*comm, inputs));
  auto* recv = static_cast<float*>(on_device(*comm, std::vector<float>(inputs.size(), -1.0f)));
  for (int c = 0; c < calls; ++c)
    comm->all_reduce(send + c * count, recv + c * count, count, DataType::f32, nullptr);
  comm->synchronize(nullptr);
  const std::vector<float> out = to_host(*comm, recv, inputs.size());
  std::size_t wrong = 0;
  for (int c = 0; c < calls; ++c)
    for (std::size_t i = 0; i < count; ++i)
      wrong += out[static_cast<std::size_t>(c) * count + i] != whole_sum(comm->size(), i, c) ? 1 : 0;
  EXPECT_EQ(wrong, 0u);
}

TEST_F(OneshotGpu, SweepHarnessInBatchModeFindsNoWrongElement) {
  const auto comm = make_oneshot_cuda_communicator(MPI_COMM_WORLD);
  SweepOptions options;
  options.sizes_bytes = {4, 4 * 1023, 4 * 65537};
  options.iters = 2;
  options.warmup_iters = 1;
  options.check_iters = 2;
  options.timing = SweepTiming::batch;
  options.batch_calls = 5;
  for (const CollectiveSpec* spec : {&all_reduce_spec(), &all_gather_spec()}) {
    const SweepResult result = run_collective_sweep(*comm, *spec, options);
    for (const SweepPoint& point : result.points) {
      EXPECT_EQ(std::accumulate(point.wrong.begin(), point.wrong.end(), std::int64_t{0}), 0) << spec->name;
      EXPECT_EQ(std::accumulate(point.wrong_inplace.begin(), point.wrong_inplace.end(), std::int64_t{0}), 0)
          << spec->name;
    }
  }
}

// What the tools run: the factory's communicator for device memory, its
// world only split (never opened), and every TP group swept in both timing
// modes, every datatype, at odd sizes.
TEST_F(OneshotGpu, FactoryPicksItForDeviceMemoryAndEveryTpGroupSweepsCorrectly) {
  const auto world = make_communicator(CollectiveKind::oneshot, MemoryKind::device, MPI_COMM_WORLD);
  ASSERT_EQ(world->memory_kind(), MemoryKind::device);
  ASSERT_EQ(world->backend_name(), "oneshot");
  for (SweepTiming timing : {SweepTiming::per_call, SweepTiming::batch})
    for (DataType type : {DataType::f32, DataType::bf16, DataType::f16})
      for (const CollectiveSpec* spec : {&all_reduce_spec(), &all_gather_spec()})
        for (int k : tp_degrees_for(world->size())) {
          SweepOptions options;
          options.type = type;
          for (std::size_t elements : {1, 3, 1023, 4099})
            options.sizes_bytes.push_back(elements * element_size(type) * static_cast<std::size_t>(k));
          options.iters = 2;
          options.warmup_iters = 1;
          options.check_iters = 2;
          options.timing = timing;
          options.batch_calls = 3;
          const TpSweep tp = run_tp_sweep(*world, k, *spec, options);
          SCOPED_TRACE(spec->name + " " + to_string(type) + " " + to_string(timing) + " k=" + std::to_string(k));
          EXPECT_EQ(std::accumulate(tp.wrong.begin(), tp.wrong.end(), std::int64_t{0}), 0);
          EXPECT_EQ(std::accumulate(tp.wrong_inplace.begin(), tp.wrong_inplace.end(), std::int64_t{0}), 0);
          for (const PointSummary& point : tp.out_of_place) EXPECT_GT(point.time_us, 0.0);
        }
}

}  // namespace
}  // namespace tpb
