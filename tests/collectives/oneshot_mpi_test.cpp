// The one-shot CPU communicator on real peers (run at 2, 3 and 4 ranks):
// exact sums of whole numbers at odd counts, in place and out of place, with
// one payload per exchange and chunked through a tiny capacity; float sums
// bit-identical on every rank and equal to the rank-order fold; all-gather in
// both placements; back-to-back calls whose inputs change every call; groups
// from split(); bad capacities refused; the factory's choice by memory.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_communicator.hpp"
#include "collectives/oneshot_communicator.hpp"
#include "common/error.hpp"
#include "whole_numbers.hpp"

namespace tpb {
namespace {

// Odd counts from 1 to 4099: below, at and above SIMD widths, the reduce
// block (4096) and the tiny capacity's chunk (16 floats).
const std::vector<std::size_t> kOddCounts = {1,   3,   5,   7,   9,    15,   17,   31,   33,   63,   65,   127, 129,
                                             255, 257, 511, 513, 1023, 1025, 2047, 2049, 4093, 4095, 4097, 4099};
// 64 bytes: 16 floats per exchange, so that 4099 elements take 257 chunks.
constexpr std::size_t kTinyCapacity = 64;

using test::whole_input;
using test::whole_sum;

struct Case {
  std::size_t capacity;
  bool in_place;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.capacity == kTinyCapacity ? "chunked" : "one_exchange") +
         (info.param.in_place ? "_in_place" : "_out_of_place");
}

class OneshotExact : public ::testing::TestWithParam<Case> {};

TEST_P(OneshotExact, AllReduceOfWholeNumbersIsExactAtOddCounts) {
  const auto comm = make_oneshot_communicator(MPI_COMM_WORLD, GetParam().capacity);
  const int k = comm->size();
  int call = 0;
  for (std::size_t count : kOddCounts) {
    SCOPED_TRACE("count " + std::to_string(count));
    std::vector<float> send(count), recv(count, -1.0f);
    std::vector<float>& input = GetParam().in_place ? recv : send;
    for (std::size_t i = 0; i < count; ++i) input[i] = whole_input(comm->rank(), i, call);
    comm->all_reduce(input.data(), recv.data(), count, DataType::f32, nullptr);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) wrong += recv[i] != whole_sum(k, i, call) ? 1 : 0;
    EXPECT_EQ(wrong, 0u);
    ++call;
  }
}

TEST_P(OneshotExact, AllGatherPlacesEveryRankInOrder) {
  const auto comm = make_oneshot_communicator(MPI_COMM_WORLD, GetParam().capacity);
  const int k = comm->size();
  const std::size_t me = static_cast<std::size_t>(comm->rank());
  for (std::size_t count : kOddCounts) {
    SCOPED_TRACE("count per rank " + std::to_string(count));
    std::vector<float> send(count), recv(count * static_cast<std::size_t>(k), -1.0f);
    float* input = GetParam().in_place ? recv.data() + me * count : send.data();
    for (std::size_t i = 0; i < count; ++i) input[i] = whole_input(comm->rank(), i, 0);
    comm->all_gather(input, recv.data(), count, DataType::f32, nullptr);
    std::size_t wrong = 0;
    for (int r = 0; r < k; ++r)
      for (std::size_t i = 0; i < count; ++i)
        wrong += recv[static_cast<std::size_t>(r) * count + i] != whole_input(r, i, 0) ? 1 : 0;
    EXPECT_EQ(wrong, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Placements, OneshotExact,
                         ::testing::Values(Case{kDefaultOneshotCapacityBytes, false},
                                           Case{kDefaultOneshotCapacityBytes, true}, Case{kTinyCapacity, false},
                                           Case{kTinyCapacity, true}),
                         case_name);

// Floats whose sum depends on the order of addition.
std::vector<float> rounding_inputs(int rank, std::size_t count) {
  std::mt19937 generator(static_cast<unsigned>(rank) * 7919u + 17u);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<float> values(count);
  for (float& v : values) v = std::ldexp(mantissa(generator), exponent(generator));
  return values;
}

TEST(OneshotFloat, SumIsTheRankOrderFoldAndBitIdenticalOnEveryRank) {
  const auto comm = make_oneshot_communicator(MPI_COMM_WORLD, kTinyCapacity * 4);
  const int k = comm->size();
  const std::size_t count = 4099;
  std::vector<float> recv(count);
  comm->all_reduce(rounding_inputs(comm->rank(), count).data(), recv.data(), count, DataType::f32, nullptr);

  // The reference every rank can compute: ((x0 + x1) + x2) + ...
  std::vector<float> fold = rounding_inputs(0, count);
  for (int r = 1; r < k; ++r) {
    const std::vector<float> next = rounding_inputs(r, count);
    for (std::size_t i = 0; i < count; ++i) fold[i] += next[i];
  }
  EXPECT_EQ(std::memcmp(recv.data(), fold.data(), count * sizeof(float)), 0);

  std::vector<float> everyone(count * static_cast<std::size_t>(k));
  ASSERT_EQ(MPI_Allgather(recv.data(), static_cast<int>(count), MPI_FLOAT, everyone.data(), static_cast<int>(count),
                          MPI_FLOAT, MPI_COMM_WORLD),
            MPI_SUCCESS);
  for (int r = 1; r < k; ++r)
    EXPECT_EQ(std::memcmp(everyone.data(), everyone.data() + static_cast<std::size_t>(r) * count,
                          count * sizeof(float)),
              0)
        << "rank " << r << " differs from rank 0";
}

// Many calls back to back, each on new inputs, alternating placements and
// sizes: a slot reused before a slow peer has read it, or a flag that
// releases a reader too early, shows up as a wrong element.
TEST(OneshotStress, BackToBackCallsWithChangingInputs) {
  const auto comm = make_oneshot_communicator(MPI_COMM_WORLD, kTinyCapacity);
  const int k = comm->size();
  const std::vector<std::size_t> counts = {1, 17, 33, 5};
  std::size_t wrong = 0;
  for (int call = 0; call < 3000; ++call) {
    const std::size_t count = counts[static_cast<std::size_t>(call) % counts.size()];
    std::vector<float> send(count), recv(count, -1.0f);
    const bool in_place = call % 3 == 0;
    std::vector<float>& input = in_place ? recv : send;
    for (std::size_t i = 0; i < count; ++i) input[i] = whole_input(comm->rank(), i, call);
    comm->all_reduce(input.data(), recv.data(), count, DataType::f32, nullptr);
    for (std::size_t i = 0; i < count; ++i) wrong += recv[i] != whole_sum(k, i, call) ? 1 : 0;
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(OneshotChunks, PayloadLargerThanTheDefaultCapacity) {
  const auto comm = make_oneshot_communicator(MPI_COMM_WORLD);
  const std::size_t count = kDefaultOneshotCapacityBytes / sizeof(float) * 2 + 3;  // three exchanges
  std::vector<float> data(count);
  for (std::size_t i = 0; i < count; ++i) data[i] = whole_input(comm->rank(), i, 1);
  comm->all_reduce(data.data(), data.data(), count, DataType::f32, nullptr);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) wrong += data[i] != whole_sum(comm->size(), i, 1) ? 1 : 0;
  EXPECT_EQ(wrong, 0u);
}

TEST(OneshotGroups, SplitSumsWithinEachGroupOnly) {
  const auto world = make_communicator("oneshot", MPI_COMM_WORLD);
  EXPECT_EQ(world->backend_name(), "oneshot");
  for (int k : tp_degrees_for(world->size())) {
    const auto group = split_into_tp_groups(*world, k);
    const int first = tp_group_of(world->rank(), k) * k;
    float value = static_cast<float>(world->rank() + 1);
    group->all_reduce(&value, &value, 1, DataType::f32, nullptr);
    // Sum of (first+1) .. (first+k).
    EXPECT_EQ(value, static_cast<float>(k * (2 * first + k + 1) / 2)) << "k=" << k;
  }
}

// The factory picks by the memory the data lives in. On host memory it is the
// shared-window one-shot, whose all-reduce sums plain host arrays; on device
// memory (CUDA builds) the CUDA IPC one, which touches no device until its
// first collective call, so that the choice is seen here without a GPU.
TEST(CommunicatorFactory, OneshotOnHostMemoryIsTheSharedWindowOne) {
  EXPECT_EQ(collective_memory(CollectiveKind::oneshot, BackendKind::cpu), MemoryKind::host);
  const auto world = make_communicator(CollectiveKind::oneshot, MemoryKind::host, MPI_COMM_WORLD);
  EXPECT_EQ(world->backend_name(), "oneshot");
  EXPECT_EQ(world->memory_kind(), MemoryKind::host);
  const auto group = split_into_tp_groups(*world, world->size());
  EXPECT_EQ(group->memory_kind(), MemoryKind::host);
  std::vector<float> data(kOddCounts.back());
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = whole_input(group->rank(), i, 2);
  group->all_reduce(data.data(), data.data(), data.size(), DataType::f32, nullptr);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < data.size(); ++i) wrong += data[i] != whole_sum(group->size(), i, 2) ? 1 : 0;
  EXPECT_EQ(wrong, 0u);
  // The default for a collective named without a memory: the cpu backend's.
  EXPECT_EQ(make_communicator("oneshot", MPI_COMM_WORLD)->memory_kind(), MemoryKind::host);
}

TEST(CommunicatorFactory, OneshotOnDeviceMemoryIsTheCudaOneOrRefused) {
  EXPECT_EQ(collective_memory(CollectiveKind::oneshot, BackendKind::cuda), MemoryKind::device);
#ifdef TPB_HAVE_CUDA
  const auto world = make_communicator(CollectiveKind::oneshot, MemoryKind::device, MPI_COMM_WORLD);
  EXPECT_EQ(world->backend_name(), "oneshot");
  EXPECT_EQ(world->memory_kind(), MemoryKind::device);
  EXPECT_EQ(split_into_tp_groups(*world, 1)->memory_kind(), MemoryKind::device);
#else
  EXPECT_THROW(make_communicator(CollectiveKind::oneshot, MemoryKind::device, MPI_COMM_WORLD), UsageError);
#endif
}

// One mapping from the backend to its memory: the ablation's check and the
// one-shot's choice of memory read the same function.
TEST(CommunicatorFactory, OneshotWorksOnTheDecodersMemory) {
  EXPECT_EQ(decoder_memory(BackendKind::cpu), MemoryKind::host);
  EXPECT_EQ(decoder_memory(BackendKind::cuda), MemoryKind::device);
  for (const BackendKind backend : {BackendKind::cpu, BackendKind::cuda})
    EXPECT_EQ(collective_memory(CollectiveKind::oneshot, backend), decoder_memory(backend)) << to_string(backend);
}

TEST(CommunicatorFactory, MpiAndNcclEachWorkOnOneMemoryOnly) {
  EXPECT_EQ(collective_memory(CollectiveKind::mpi, BackendKind::cuda), MemoryKind::host);
  EXPECT_EQ(collective_memory(CollectiveKind::nccl, BackendKind::cpu), MemoryKind::device);
  EXPECT_EQ(make_communicator(CollectiveKind::mpi, MemoryKind::host, MPI_COMM_WORLD)->memory_kind(),
            MemoryKind::host);
  EXPECT_THROW(make_communicator(CollectiveKind::mpi, MemoryKind::device, MPI_COMM_WORLD), UsageError);
  EXPECT_THROW(make_communicator(CollectiveKind::nccl, MemoryKind::host, MPI_COMM_WORLD), UsageError);
}

TEST(OneshotErrors, CapacityAndDatatypeAreChecked) {
  EXPECT_THROW(make_oneshot_communicator(MPI_COMM_WORLD, 0), UsageError);
  EXPECT_THROW(make_oneshot_communicator(MPI_COMM_WORLD, 100), UsageError);
  const auto comm = make_oneshot_communicator(MPI_COMM_WORLD, kTinyCapacity);
  std::uint16_t half = 0;
  EXPECT_THROW(comm->all_reduce(&half, &half, 1, DataType::bf16, nullptr), UsageError);
}

}  // namespace
}  // namespace tpb
