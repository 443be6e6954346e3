// The cpu backend's weight arena: every page placed by the scattered first
// touch, blocks handed out aligned and disjoint, given back and merged; and a
// backend that reserves its weights computes the same bits as one that does not.
#include "tp_decoder/cpu/weight_arena.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <set>
#include <vector>

#include "tp_decoder/backend.hpp"

namespace tpb {
namespace {

TEST(WeightArena, StrideVisitsEveryRunOnceAndJumpsFar) {
  for (std::size_t runs : {1u, 2u, 3u, 4u, 10u, 64u, 1000u, 4096u, 1u << 18}) {
    const std::size_t stride = scattered_run_stride(runs);
    std::vector<bool> seen(runs, false);
    std::size_t next = 0;
    for (std::size_t i = 0; i < runs; ++i) {
      ASSERT_FALSE(seen[next]) << runs << " runs: run " << next << " touched twice";
      seen[next] = true;
      const std::size_t after = (next + stride) % runs;
      // Two consecutive touches are at least a quarter of the region apart.
      if (runs >= 64) {
        const std::size_t gap = after > next ? after - next : next - after;
        EXPECT_GE(std::min(gap, runs - gap), runs / 4) << runs << " runs";
      }
      next = after;
    }
  }
}

TEST(WeightArena, EveryPageIsResidentOnceBuilt) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  WeightArena arena(257 * page + 1);  // rounded up to 258 pages
  ASSERT_EQ(arena.size(), 258 * page);
  void* base = arena.take(1);
  ASSERT_NE(base, nullptr);
  std::vector<unsigned char> resident(258);
  ASSERT_EQ(mincore(base, arena.size(), resident.data()), 0);
  for (std::size_t i = 0; i < resident.size(); ++i) EXPECT_TRUE(resident[i] & 1) << "page " << i << " not touched";
}

TEST(WeightArena, BlocksAreAlignedDisjointAndMergeWhenGivenBack) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  WeightArena arena(16 * page);
  std::vector<std::pair<char*, std::size_t>> blocks;
  for (std::size_t bytes : {1u, 100u, 4096u, 63u, 65u, 9000u}) {
    char* p = static_cast<char*>(arena.take(bytes));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
    EXPECT_TRUE(arena.owns(p));
    for (const auto& [q, n] : blocks) EXPECT_TRUE(p + bytes <= q || q + n <= p) << "blocks overlap";
    std::memset(p, 0x5a, bytes);
    blocks.push_back({p, bytes});
  }
  EXPECT_EQ(arena.take(arena.size()), nullptr) << "more than is free was handed out";
  // Given back out of order, the blocks merge into one that holds the whole region.
  for (std::size_t i : {3u, 0u, 5u, 1u, 4u, 2u}) arena.give(blocks[i].first, blocks[i].second);
  EXPECT_NE(arena.take(arena.size()), nullptr) << "the blocks given back did not merge into the whole region";
}

TEST(WeightArena, RefusesMemoryItDidNotHandOut) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  WeightArena arena(4 * page);
  int outside = 0;
  EXPECT_FALSE(arena.owns(&outside));
  EXPECT_THROW(arena.give(&outside, sizeof outside), std::exception);
  void* p = arena.take(128);
  arena.give(p, 128);
  EXPECT_THROW(arena.give(p, 128), std::exception) << "a block given back twice";
}

// The same weight and input through a backend that reserved its weights and
// one that did not: the same bits, and a weight drawn again after a release
// reuses the reservation.
TEST(WeightArena, ReservedBackendComputesTheSameBits) {
  const std::int64_t n = 67, k = 45, m = 3;
  std::vector<float> w(static_cast<std::size_t>(n * k)), x(static_cast<std::size_t>(m * k));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 7919) % 101) / 50.0f - 1.0f;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 104729) % 89) / 44.0f - 1.0f;
  std::vector<std::vector<float>> outputs;
  for (bool reserve : {false, true}) {
    std::unique_ptr<Backend> backend = make_backend(BackendKind::cpu);
    if (reserve) backend->reserve_weights(n * k * 4 + 64);
    for (int draw = 0; draw < 2; ++draw) {
      OwnedTensor weight(*backend, n, k, TensorRole::weight);
      OwnedTensor in(*backend, m, k, TensorRole::activation);
      OwnedTensor out(*backend, m, n, TensorRole::activation);
      backend->upload(*weight, w.data());
      backend->upload(*in, x.data());
      backend->matmul(*out, *in, *weight, nullptr);
      std::vector<float> y(static_cast<std::size_t>(m * n));
      backend->download(*out, y.data());
      outputs.push_back(y);
    }
    if (reserve) {
      EXPECT_THROW(backend->reserve_weights(4096), std::exception) << "reserved twice";
    }
  }
  for (const std::vector<float>& y : outputs)
    EXPECT_EQ(std::memcmp(y.data(), outputs[0].data(), y.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace tpb
