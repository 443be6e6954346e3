// The small-batch kernel against a double-precision reference on every shape
// class the step uses (k off the vector width, odd n, the LM head's n, TP shard
// widths, the qwen2 bias), on every instruction-set path; its fixed order:
// bit-identical run to run, for any thread count, batch or row shard; and the
// packed weight order, as the kernel and the cpu backend's weights use it.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tp_decoder/backend.hpp"
#include "tp_decoder/cpu/small_batch_gemm.hpp"

namespace tpb {
namespace {

struct Problem {
  std::int64_t m, n, k;
  bool bias;
};

std::vector<float> random_values(std::int64_t count, std::uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> draw(-1.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(count));
  for (float& value : v) value = draw(engine);
  return v;
}

// The (n, k) row-major weight in the kernel's order.
std::vector<float> packed(const std::vector<float>& w, std::int64_t n, std::int64_t k) {
  std::vector<float> p(w.size(), std::nanf(""));
  pack_weight_rows(n, k, 0, n, w.data(), p.data());
  return p;
}

// Every path this CPU runs.
std::vector<GemmIsa> isas() {
  std::vector<GemmIsa> list;
  for (GemmIsa isa : {GemmIsa::portable, GemmIsa::avx2_fma})
    if (gemm_isa_supported(isa)) list.push_back(isa);
  return list;
}

std::string describe(const Problem& p, GemmIsa isa) {
  return std::string(to_string(isa)) + " m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
         " k=" + std::to_string(p.k) + (p.bias ? " +bias" : "");
}

// Every output within a float summation bound of the double product: the
// kernel's order is one chain over k, so about k + 1 roundings of the sum of
// |terms| (the classic bound for recursive summation, plus the bias).
// Dropping the last panel's n % 8 rows, a column range or a batch tile misses
// whole terms, which is orders of magnitude above it.
void expect_matches_reference(const Problem& p, GemmIsa isa) {
  const auto x = random_values(p.m * p.k, 1);
  const auto w = random_values(p.n * p.k, 2);
  const auto b = random_values(p.n, 3);
  std::vector<float> y(static_cast<std::size_t>(p.m * p.n), std::nanf(""));
  small_batch_gemm(isa, p.m, p.n, p.k, x.data(), packed(w, p.n, p.k).data(), p.bias ? b.data() : nullptr, y.data());
  const double roundings = static_cast<double>(p.k + 2);
  int reported = 0;
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      double sum = p.bias ? b[static_cast<std::size_t>(j)] : 0.0;
      double magnitude = std::fabs(sum);
      for (std::int64_t c = 0; c < p.k; ++c) {
        const double term = static_cast<double>(x[static_cast<std::size_t>(i * p.k + c)]) *
                            static_cast<double>(w[static_cast<std::size_t>(j * p.k + c)]);
        sum += term;
        magnitude += std::fabs(term);
      }
      const double got = y[static_cast<std::size_t>(i * p.n + j)];
      const double tolerance = roundings * 1.2e-7 * magnitude;
      if (!(std::fabs(got - sum) <= tolerance) && reported++ < 3)
        ADD_FAILURE() << describe(p, isa) << ": y[" << i << "][" << j << "] = " << got << ", reference " << sum
                      << " (tolerance " << tolerance << ")";
    }
}

TEST(SmallBatchGemm, EveryBatchFrom1To33) {
  for (GemmIsa isa : isas())
    for (std::int64_t m = 1; m <= 33; ++m) {
      expect_matches_reference({m, 37, 67, false}, isa);
      expect_matches_reference({m, 13, 1029, true}, isa);  // k crosses 128-column ranges, a last one of 5
    }
}

TEST(SmallBatchGemm, ColumnTailsAndRowTails) {
  for (GemmIsa isa : isas())
    for (std::int64_t k : {1, 3, 7, 8, 9, 15, 17, 511, 513})
      for (std::int64_t n : {1, 2, 3, 4, 5, 7, 9, 15, 17})
        for (std::int64_t m : {1, 2, 4, 5}) expect_matches_reference({m, n, k, n % 2 == 1}, isa);
}

TEST(SmallBatchGemm, LmHeadAndTpShardWidths) {
  for (GemmIsa isa : isas()) {
    expect_matches_reference({4, 128256, 24, false}, isa);   // the LM head's vocabulary, narrow k
    expect_matches_reference({3, 1536, 2048, false}, isa);   // llama-3.2-1b qkv, TP-2 (n/k)
    expect_matches_reference({2, 2048, 512, false}, isa);    // llama-3.2-1b o_proj, TP-4 (k/k)
    expect_matches_reference({5, 2048, 4096, false}, isa);   // llama-3.2-1b down, TP-2 (k/k)
    expect_matches_reference({2, 2304, 3584, true}, isa);    // qwen2.5-7b qkv with bias, TP-2
    expect_matches_reference({17, 1155, 1795, true}, isa);   // qwen2.5-7b qkv / 4 rows, odd everything
  }
}

// Shapes no table above chose: m, n, k and the bias drawn at random (fixed
// seed, so a failure names a shape that reproduces), k mostly off the vector
// width, n mostly off the 8-row panel.
TEST(SmallBatchGemm, RandomShapes) {
  std::mt19937 engine(2024);
  std::uniform_int_distribution<std::int64_t> batch(1, 33), rows(1, 300), columns(1, 700);
  for (int draw = 0; draw < 40; ++draw) {
    const Problem p{batch(engine), rows(engine), columns(engine), engine() % 2 == 0};
    for (GemmIsa isa : isas()) expect_matches_reference(p, isa);
  }
}

// The kernel reads several panels side by side (small_batch_gemm_plan): every
// count of whole 8-row panels from 1 to 9 leaves a last group of 1 to 4
// panels, each with and without a last short panel, at batches that take one
// pass, a pass and a tile from L1, and several tiles.
TEST(SmallBatchGemm, EveryGroupOfPanels) {
  for (GemmIsa isa : isas())
    for (std::int64_t n = 8; n <= 79; ++n)
      for (std::int64_t m : {1, 2, 3, 4, 5, 9}) expect_matches_reference({m, n, 67, n % 3 == 0}, isa);
}

// Every pass of the plan fits AVX2's 16 registers (an accumulator per panel
// and row, a weight register per panel and a broadcast), so no pass the
// kernel is handed spills, and the pass from memory takes 1 to m rows.
TEST(SmallBatchGemm, ReadPlanFitsTheRegisters) {
  for (std::int64_t m = 1; m <= 40; ++m) {
    const PanelPlan plan = small_batch_gemm_plan(m);
    EXPECT_GE(plan.panels, 1) << "m " << m;
    EXPECT_LE(plan.panels * plan.read_rows + plan.panels + 1, 16) << "m " << m;
    EXPECT_LE(plan.panels * plan.tile_rows + plan.panels + 1, 16) << "m " << m;
    EXPECT_TRUE(plan.read_rows >= 1 && plan.read_rows <= m) << "m " << m;
    EXPECT_GE(plan.tile_rows, 1) << "m " << m;
  }
}

std::vector<float> run(GemmIsa isa, const Problem& p, const std::vector<float>& x, const std::vector<float>& w,
                       const std::vector<float>& b) {
  std::vector<float> y(static_cast<std::size_t>(p.m * p.n));
  small_batch_gemm(isa, p.m, p.n, p.k, x.data(), packed(w, p.n, p.k).data(), p.bias ? b.data() : nullptr, y.data());
  return y;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(SmallBatchGemm, BitIdenticalRunToRunAndAcrossThreadCounts) {
  const Problem p{8, 1003, 2051, true};
  const auto x = random_values(p.m * p.k, 4);
  const auto w = random_values(p.n * p.k, 5);
  const auto b = random_values(p.n, 6);
  const int threads = omp_get_max_threads();
  for (GemmIsa isa : isas()) {
    omp_set_num_threads(1);
    const std::vector<float> first = run(isa, p, x, w, b);
    for (int repeat = 0; repeat < 5; ++repeat)
      EXPECT_TRUE(same_bits(run(isa, p, x, w, b), first)) << to_string(isa) << ", repeat " << repeat;
    omp_set_num_threads(2);
    EXPECT_TRUE(same_bits(run(isa, p, x, w, b), first)) << to_string(isa) << ", 2 threads";
    omp_set_num_threads(3);
    EXPECT_TRUE(same_bits(run(isa, p, x, w, b), first)) << to_string(isa) << ", 3 threads";
  }
  omp_set_num_threads(threads);
}

// A batch row's outputs do not depend on the rest of the batch, and a row
// shard of w, packed on its own, gives exactly the full product's columns: b = 1 and b = 8 agree
// bit for bit, as do the TP-k column shards of qkv, gate/up and the LM head.
TEST(SmallBatchGemm, OrderIndependentOfBatchAndRowShard) {
  const Problem p{7, 301, 777, false};
  const auto x = random_values(p.m * p.k, 7);
  const auto w = random_values(p.n * p.k, 8);
  for (GemmIsa isa : isas()) {
    const std::vector<float> full = run(isa, p, x, w, {});
    for (std::int64_t i = 0; i < p.m; ++i) {
      const std::vector<float> row(x.begin() + i * p.k, x.begin() + (i + 1) * p.k);
      const std::vector<float> alone = run(isa, {1, p.n, p.k, false}, row, w, {});
      EXPECT_EQ(std::memcmp(alone.data(), full.data() + i * p.n, static_cast<std::size_t>(p.n) * 4), 0)
          << to_string(isa) << ", batch row " << i;
    }
    const std::int64_t begin = 101, rows = 150;  // a shard that starts mid-block
    const std::vector<float> shard_w(w.begin() + begin * p.k, w.begin() + (begin + rows) * p.k);
    const std::vector<float> shard = run(isa, {p.m, rows, p.k, false}, x, shard_w, {});
    for (std::int64_t i = 0; i < p.m; ++i)
      EXPECT_EQ(std::memcmp(shard.data() + i * rows, full.data() + i * p.n + begin, static_cast<std::size_t>(rows) * 4),
                0)
          << to_string(isa) << ", batch row " << i << " of the shard";
  }
}

// The portable path takes the same fused chains as the AVX2 kernel, so the
// two agree bit for bit on every panel shape (n % 8 = 0..7), plan and bias.
TEST(SmallBatchGemm, PortableGivesTheAvx2Bits) {
  if (!gemm_isa_supported(GemmIsa::avx2_fma)) GTEST_SKIP() << "no AVX2 + FMA on this CPU";
  for (std::int64_t m : {1, 2, 3, 8, 9, 16, 33, 34})
    for (std::int64_t n : {8, 9, 12, 15, 23, 40})
      for (std::int64_t k : {1, 29, 300}) {
        const Problem p{m, n, k, n % 2 == 1};
        const auto x = random_values(p.m * p.k, 12);
        const auto w = random_values(p.n * p.k, 13);
        const auto b = random_values(p.n, 14);
        EXPECT_TRUE(same_bits(run(GemmIsa::portable, p, x, w, b), run(GemmIsa::avx2_fma, p, x, w, b)))
            << describe(p, GemmIsa::avx2_fma);
      }
}

// Every element has one place in the packed order, (1, n) vectors keep theirs,
// and packing rows part by part (as fused tensors are filled) or unpacking them
// reproduces the row-major weight.
TEST(PackedWeight, OffsetsArePermutationAndRowPartsCompose) {
  for (std::int64_t n : {1, 2, 3, 7, 8, 9, 17, 20})
    for (std::int64_t k : {1, 7, 8, 9, 24, 29}) {
      std::vector<int> seen(static_cast<std::size_t>(n * k), 0);
      for (std::int64_t r = 0; r < n; ++r)
        for (std::int64_t c = 0; c < k; ++c) {
          const std::int64_t at = packed_weight_offset(n, k, r, c);
          ASSERT_TRUE(at >= 0 && at < n * k) << n << "x" << k << " (" << r << ", " << c << ")";
          ++seen[static_cast<std::size_t>(at)];
          if (n == 1) {
            EXPECT_EQ(at, c);
          }
        }
      for (int count : seen) EXPECT_EQ(count, 1) << n << "x" << k;
      const auto w = random_values(n * k, 9);
      std::vector<float> parts(w.size(), std::nanf(""));
      const std::int64_t split = n / 2 + 1;  // mid-panel when n > 2
      pack_weight_rows(n, k, 0, split, w.data(), parts.data());
      if (split < n) pack_weight_rows(n, k, split, n - split, w.data() + split * k, parts.data());
      EXPECT_EQ(std::memcmp(parts.data(), packed(w, n, k).data(), w.size() * 4), 0) << n << "x" << k;
      std::vector<float> back(w.size());
      unpack_weight_rows(n, k, 0, n, parts.data(), back.data());
      EXPECT_EQ(std::memcmp(back.data(), w.data(), w.size() * 4), 0) << n << "x" << k;
    }
}

// The cpu backend keeps weights packed and shows them row-major: upload then
// download returns the values, matmul multiplies by the logical weight, and an
// embedding lookup returns the logical row.
TEST(PackedWeight, CpuBackendShowsWeightsRowMajor) {
  const std::unique_ptr<Backend> backend = make_backend("cpu");
  const std::int64_t n = 11, k = 21, m = 3;
  const auto w = random_values(n * k, 10);
  const auto x = random_values(m * k, 11);
  OwnedTensor weight(*backend, n, k, TensorRole::weight);
  backend->upload(*weight, w.data());
  std::vector<float> back(w.size());
  backend->download(*weight, back.data());
  EXPECT_EQ(std::memcmp(back.data(), w.data(), w.size() * 4), 0);

  OwnedTensor in(*backend, m, k, TensorRole::activation), out(*backend, m, n, TensorRole::activation);
  backend->upload(*in, x.data());
  backend->matmul(*out, *in, *weight, nullptr);
  std::vector<float> y(static_cast<std::size_t>(m * n));
  backend->download(*out, y.data());
  EXPECT_TRUE(same_bits(y, run(small_batch_gemm_isa(), {m, n, k, false}, x, w, {})));

  OwnedTensor tokens(*backend, 1, 2, TensorRole::tokens), rows(*backend, 2, k, TensorRole::activation);
  const std::int32_t ids[2] = {9, 2};
  backend->upload_tokens(*tokens, ids);
  backend->embedding(*rows, *weight, *tokens);
  std::vector<float> got(static_cast<std::size_t>(2 * k));
  backend->download(*rows, got.data());
  for (int b = 0; b < 2; ++b)
    EXPECT_EQ(std::memcmp(got.data() + b * k, w.data() + ids[b] * k, static_cast<std::size_t>(k) * 4), 0) << b;
}

}  // namespace
}  // namespace tpb
