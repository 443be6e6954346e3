// The small-batch kernel's driver, one template over the instruction set's
// vector operations, shared by small_batch_gemm_avx2.cpp and
// small_batch_gemm_avx512.cpp. Each of them defines TPB_GEMM_TARGET (its
// target attribute) and then includes this file: every function here is
// compiled for that target, so the intrinsics inline into it and nothing here
// runs on a CPU small_batch_gemm_isa() did not choose it for. The anonymous
// namespace gives each including file its own copy (the way Highway compiles
// one source per target).
//
// `Isa` supplies (see the two files):
//   Vec                          the vector type
//   kRowsPerVec                  weight rows one Vec holds (8 columns of each)
//   kChunk, kPrefetchFloats      the blocking below
//   kMaxTile                     batch rows per tile, within the registers
//   load_weights<R>(w, v)        the v-th Vec of an 8-column group of R rows
//   load_x(x)                    8 columns of a batch row, in every row slot
//   fma(a, b, c), zero()
//   row_sum(acc, slot)           lane_tree below over the 8 lanes of row
//                                slot `slot`
#pragma once

#ifndef TPB_GEMM_TARGET
#error "define TPB_GEMM_TARGET (the kernel's target attribute) before including small_batch_gemm_driver.hpp"
#endif

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tp_decoder/cpu/small_batch_gemm.hpp"

namespace tpb::detail {
namespace {

// A block is kGemmBlockRows weight rows, packed so that its R·k floats are one
// contiguous stream (small_batch_gemm.hpp), and the blocks follow each other:
// the whole weight is one stream. A block's columns are taken Isa::kChunk at a
// time, and each chunk is multiplied by every batch tile before the next: the
// chunk stays in L1 for the tiles after the first. Every tile pass also
// prefetches the stream Isa::kPrefetchFloats ahead, so the memory read goes on
// while the later tiles compute from L1; without it the read and the FMAs took
// turns and a batch of 4-16 rows reached about half of max(read, FMA) time
// (docs/MEASUREMENT.md). Past the weight's end the prefetches are dropped.
// Batch rows whose accumulators one block keeps at once: a larger batch is
// taken in groups, and the weight block is then read once per group.
constexpr int kGroup = 33;

// The fixed tree of small_batch_gemm.hpp over 8 lane sums: halves, then
// pairs, then the last two.
TPB_GEMM_TARGET inline float lane_tree(__m256 v) {
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
}

// Vectors of one 8-column group of an R-row block.
template <class Isa, int R>
constexpr int kVectors = (R + Isa::kRowsPerVec - 1) / Isa::kRowsPerVec;

// w is the block's start; the 8-column group at column c holds its R rows'
// 8-float runs side by side at w + c·R. acc holds the tile's accumulators,
// vector v of batch row i at acc[v·M + i].
template <class Isa, int R, int M>
TPB_GEMM_TARGET inline void tile_pass(const float* w, const float* x, std::int64_t k, std::int64_t c0,
                                      std::int64_t c1, typename Isa::Vec* acc) {
  using Vec = typename Isa::Vec;
  constexpr int V = kVectors<Isa, R>;
  Vec a[V][M];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v)
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) a[v][i] = acc[v * M + i];
  for (std::int64_t c = c0; c < c1; c += 8) {
    const float* wc = w + c * R;
    // This step reads R · 32 bytes of the stream: as many bytes are prefetched
    // (an address, not a pointer, as it may lie past the weight).
    const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(wc) + Isa::kPrefetchFloats * 4;
#pragma GCC unroll 2
    for (int line = 0; line < R * 32; line += 64)
      _mm_prefetch(reinterpret_cast<const char*>(ahead + static_cast<std::uintptr_t>(line)), _MM_HINT_T0);
    // The batch rows first, then one weight vector at a time: M + 1 + V·M
    // registers, which is what lets AVX2 hold a 4 × 3 tile in its 16.
    Vec xv[M];
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) xv[i] = Isa::load_x(x + i * k + c);
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const Vec wv = Isa::template load_weights<R>(wc, v);
#pragma GCC unroll 8
      for (int i = 0; i < M; ++i) a[v][i] = Isa::fma(wv, xv[i], a[v][i]);
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v)
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) acc[v * M + i] = a[v][i];
}

// tile_pass for a tile of `tile` rows, 1 ≤ tile ≤ Isa::kMaxTile: the tile size
// is a template argument so that the accumulators stay in registers.
template <class Isa, int R, int M = 1>
TPB_GEMM_TARGET inline void tile_pass(int tile, const float* w, const float* x, std::int64_t k, std::int64_t c0,
                                      std::int64_t c1, typename Isa::Vec* acc) {
  if constexpr (M < Isa::kMaxTile) {
    if (tile > M) return tile_pass<Isa, R, M + 1>(tile, w, x, k, c0, c1, acc);
  }
  tile_pass<Isa, R, M>(w, x, k, c0, c1, acc);
}

// Rows [j0, j0 + R) of y for batch rows [b0, b0 + rows).
template <class Isa, int R>
TPB_GEMM_TARGET void row_block(std::int64_t j0, std::int64_t b0, int rows, std::int64_t n, std::int64_t k,
                               const float* x, const float* w, const float* bias, float* y) {
  constexpr int V = kVectors<Isa, R>;
  alignas(64) typename Isa::Vec acc[V * kGroup];
  for (int i = 0; i < V * rows; ++i) acc[i] = Isa::zero();
  const float* wb = w + j0 * k;
  const float* xb = x + b0 * k;
  // Tiles of at most kMaxTile rows, as even as they can be (with 8: 16 = 8 + 8,
  // 12 = 6 + 6; with 3: 4 = 2 + 2, not 3 + 1).
  const int tiles = (rows + Isa::kMaxTile - 1) / Isa::kMaxTile;
  const std::int64_t k8 = k - k % 8;
  for (std::int64_t c0 = 0; c0 < k8; c0 += Isa::kChunk) {
    const std::int64_t c1 = std::min(c0 + Isa::kChunk, k8);
    int first = 0;
    for (int t = 0; t < tiles; ++t) {
      const int size = rows / tiles + (t < rows % tiles ? 1 : 0);
      tile_pass<Isa, R>(size, wb, xb + first * k, k, c0, c1, acc + V * first);
      first += size;
    }
  }
  int first = 0;
  for (int t = 0; t < tiles; ++t) {
    const int size = rows / tiles + (t < rows % tiles ? 1 : 0);
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < size; ++i) {
        const float* tail = wb + k8 * R + r * (k - k8);
        const float* xi = xb + (first + i) * k;
        float sum = Isa::row_sum(acc[V * first + (r / Isa::kRowsPerVec) * size + i], r % Isa::kRowsPerVec);
        // Fused, spelled out: left to contraction, the two kernels' tails
        // compiled to different roundings.
        for (std::int64_t c = k8; c < k; ++c) sum = std::fma(tail[c - k8], xi[c], sum);
        const std::int64_t j = j0 + r;
        y[(b0 + first + i) * n + j] = bias ? sum + bias[j] : sum;
      }
    first += size;
  }
}

// y = x · wᵀ (+ bias) over the packed w, the row blocks split among the
// OpenMP threads. It needs no target of its own: the vector work is all in
// row_block.
template <class Isa>
void run_small_batch_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                          const float* bias, float* y) {
  constexpr std::int64_t kRows = kGemmBlockRows;
  const std::int64_t blocks = (n + kRows - 1) / kRows;
#pragma omp parallel for schedule(static) if (omp_get_max_threads() > 1)
  for (std::int64_t block = 0; block < blocks; ++block) {
    const std::int64_t j0 = block * kRows;
    const auto rows_here = static_cast<int>(std::min<std::int64_t>(kRows, n - j0));
    for (std::int64_t b0 = 0; b0 < m; b0 += kGroup) {
      const auto batch = static_cast<int>(std::min<std::int64_t>(kGroup, m - b0));
      static_assert(kRows == 4, "one case per block height");
      switch (rows_here) {
        case 4: row_block<Isa, 4>(j0, b0, batch, n, k, x, w, bias, y); break;
        case 3: row_block<Isa, 3>(j0, b0, batch, n, k, x, w, bias, y); break;
        case 2: row_block<Isa, 2>(j0, b0, batch, n, k, x, w, bias, y); break;
        default: row_block<Isa, 1>(j0, b0, batch, n, k, x, w, bias, y); break;
      }
    }
  }
}

}  // namespace
}  // namespace tpb::detail
