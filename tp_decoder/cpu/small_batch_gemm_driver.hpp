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
//   kStreams, kStreamedRows,     the streamed first pass below
//   kStreamUpToRows
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
// chunk stays in L1 for the tiles after the first. The memory read is fed in
// one of two ways, chosen by the batch size (run_small_batch_gemm):
// - prefetched: every tile pass prefetches the stream Isa::kPrefetchFloats
//   ahead, so the read goes on while the later tiles compute from L1; without
//   it the read and the FMAs took turns, and on the Intel core of
//   docs/MEASUREMENT.md a batch of 4-16 rows reached about half of
//   max(read, FMA) time. Past the weight's end the prefetches are dropped.
// - streamed: the batch (up to Isa::kStreamedRows rows, else its first row)
//   is taken over Isa::kStreams blocks at once, so the core reads that many
//   streams side by side, with no software prefetch; any other rows follow
//   from L1. On the AMD core of docs/MEASUREMENT.md one core read 1.3-1.9x
//   faster from four nearby streams than from one, and a software prefetch
//   slowed every batch size.
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

// Columns [c0, c1) of G blocks of R rows, block g starting at w + g·R·k (the
// 8-column group at column c holds its R rows' 8-float runs side by side at
// c·R), against M batch rows of x. acc holds the accumulators, vector v of
// block g for batch row i at acc[(g·V + v)·kGroup + i].
template <class Isa, int R, int G, int M, bool Prefetch>
TPB_GEMM_TARGET inline void tile_pass(const float* w, const float* x, std::int64_t k, std::int64_t c0,
                                      std::int64_t c1, typename Isa::Vec* acc) {
  using Vec = typename Isa::Vec;
  constexpr int V = kVectors<Isa, R>;
  Vec a[G][V][M];
#pragma GCC unroll 4
  for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
#pragma GCC unroll 8
      for (int i = 0; i < M; ++i) a[g][v][i] = acc[(g * V + v) * kGroup + i];
  for (std::int64_t c = c0; c < c1; c += 8) {
    if constexpr (Prefetch) {
      // This step reads R · 32 bytes of the stream: as many bytes are
      // prefetched (an address, not a pointer, as it may lie past the weight).
      const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(w + c * R) + Isa::kPrefetchFloats * 4;
#pragma GCC unroll 2
      for (int line = 0; line < R * 32; line += 64)
        _mm_prefetch(reinterpret_cast<const char*>(ahead + static_cast<std::uintptr_t>(line)), _MM_HINT_T0);
    }
    // The batch rows first, then one weight vector at a time: M + 1 + G·V·M
    // registers, which is what lets AVX2 hold a 4 × 3 tile in its 16.
    Vec xv[M];
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) xv[i] = Isa::load_x(x + i * k + c);
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        Vec wv = Isa::template load_weights<R>(w + g * R * k + c * R, v);
        // Held in a register: left alone, GCC folds the load into each of the
        // M FMAs (a memory operand apiece), and a 2-row tile then ran at about
        // 0.55 of the FMA peak from L1 against 0.9 with the one load.
        if constexpr (M > 1) __asm__("" : "+v"(wv));
#pragma GCC unroll 8
        for (int i = 0; i < M; ++i) a[g][v][i] = Isa::fma(wv, xv[i], a[g][v][i]);
      }
  }
#pragma GCC unroll 4
  for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
#pragma GCC unroll 8
      for (int i = 0; i < M; ++i) acc[(g * V + v) * kGroup + i] = a[g][v][i];
}

// tile_pass of one block for a tile of `tile` rows, 1 ≤ tile ≤ Isa::kMaxTile:
// the tile size is a template argument so that the accumulators stay in
// registers.
template <class Isa, int R, bool Prefetch, int M = 1>
TPB_GEMM_TARGET inline void tile_pass(int tile, const float* w, const float* x, std::int64_t k, std::int64_t c0,
                                      std::int64_t c1, typename Isa::Vec* acc) {
  if constexpr (M < Isa::kMaxTile) {
    if (tile > M) return tile_pass<Isa, R, Prefetch, M + 1>(tile, w, x, k, c0, c1, acc);
  }
  tile_pass<Isa, R, 1, M, Prefetch>(w, x, k, c0, c1, acc);
}

// The streamed pass: batch rows [0, L) over G blocks, 1 ≤ G ≤ Isa::kStreams,
// from memory. Row 0's accumulators stay in registers; those of rows 1 to L - 1
// stay in acc (L1), a load and a store per FMA. The pass waits on the memory
// read, and those loads and stores fit in the wait, where a second pass over
// the chunk from L1 would come after it: on the AMD core, 2 rows went from
// 0.83-0.93 to 0.90-1.06 of a four-stream read and 3 rows from 0.71-0.84 to
// 0.77-0.90 (docs/MEASUREMENT.md).
template <class Isa, int R, int G, int L>
TPB_GEMM_TARGET inline void streamed_tile(const float* w, const float* x, std::int64_t k, std::int64_t c0,
                                          std::int64_t c1, typename Isa::Vec* __restrict acc) {
  using Vec = typename Isa::Vec;
  constexpr int V = kVectors<Isa, R>;
  Vec a[G][V];
#pragma GCC unroll 4
  for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) a[g][v] = acc[(g * V + v) * kGroup];
  for (std::int64_t c = c0; c < c1; c += 8) {
    const Vec x0 = Isa::load_x(x + c);
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        Vec wv = Isa::template load_weights<R>(w + g * R * k + c * R, v);
        if constexpr (L > 1) __asm__("" : "+v"(wv));  // one load for the L rows (tile_pass)
        a[g][v] = Isa::fma(wv, x0, a[g][v]);
#pragma GCC unroll 4
        for (int i = 1; i < L; ++i) {
          Vec& held = acc[(g * V + v) * kGroup + i];
          held = Isa::fma(wv, Isa::load_x(x + i * k + c), held);
        }
      }
  }
#pragma GCC unroll 4
  for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[(g * V + v) * kGroup] = a[g][v];
}

// streamed_tile for `blocks` blocks and `lead` rows, as template arguments.
template <class Isa, int R, int G = 1, int L = 1>
TPB_GEMM_TARGET inline void streamed_pass(int blocks, int lead, const float* w, const float* x, std::int64_t k,
                                          std::int64_t c0, std::int64_t c1, typename Isa::Vec* acc) {
  if constexpr (G < Isa::kStreams) {
    if (blocks > G) return streamed_pass<Isa, R, G + 1, L>(blocks, lead, w, x, k, c0, c1, acc);
  }
  if constexpr (L < Isa::kStreamedRows) {
    if (lead > L) return streamed_pass<Isa, R, G, L + 1>(blocks, lead, w, x, k, c0, c1, acc);
  }
  streamed_tile<Isa, R, G, L>(w, x, k, c0, c1, acc);
}

// Rows [j0, j0 + G·R) of y (G blocks) for batch rows [b0, b0 + rows); G is 1
// unless streamed.
template <class Isa, int R>
TPB_GEMM_TARGET void row_blocks(std::int64_t j0, int G, bool streamed, std::int64_t b0, int rows, std::int64_t n,
                                std::int64_t k, const float* x, const float* w, const float* bias, float* y) {
  constexpr int V = kVectors<Isa, R>;
  alignas(64) typename Isa::Vec acc[Isa::kStreams * V * kGroup];
  // Only the accumulators this call uses: the array is sized for the largest
  // group and batch (12.7 KiB on AVX2, written per call for 12 weight rows).
  for (int gv = 0; gv < G * V; ++gv)
    for (int i = 0; i < rows; ++i) acc[gv * kGroup + i] = Isa::zero();
  const float* wb = w + j0 * k;
  const float* xb = x + b0 * k;
  // Streamed, the streamed pass takes every row where there are at most
  // kStreamedRows, else row 0 alone: with 4 rows, 3 there and 1 in a tile from
  // L1 were slower than 1 there and a 3-row tile (0.66-0.75 against 0.71-0.77
  // of the read). The rest go in tiles of at most kMaxTile rows, as even as
  // they can be (with 8: 16 = 8 + 8, 12 = 6 + 6; with 3: 4 = 2 + 2, not 3 + 1).
  const int lead = !streamed ? 0 : rows <= Isa::kStreamedRows ? rows : 1;
  const int rest = rows - lead;
  const int tiles = (rest + Isa::kMaxTile - 1) / Isa::kMaxTile;
  const std::int64_t k8 = k - k % 8;
  for (std::int64_t c0 = 0; c0 < k8; c0 += Isa::kChunk) {
    const std::int64_t c1 = std::min(c0 + Isa::kChunk, k8);
    if (streamed) streamed_pass<Isa, R>(G, lead, wb, xb, k, c0, c1, acc);
    for (int g = 0; g < G; ++g) {
      int first = lead;
      for (int t = 0; t < tiles; ++t) {
        const int size = rest / tiles + (t < rest % tiles ? 1 : 0);
        typename Isa::Vec* tile_acc = acc + g * V * kGroup + first;
        if (streamed)
          tile_pass<Isa, R, false>(size, wb + g * R * k, xb + first * k, k, c0, c1, tile_acc);
        else
          tile_pass<Isa, R, true>(size, wb + g * R * k, xb + first * k, k, c0, c1, tile_acc);
        first += size;
      }
    }
  }
  for (int g = 0; g < G; ++g)
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < rows; ++i) {
        const float* tail = wb + g * R * k + k8 * R + r * (k - k8);
        const float* xi = xb + i * k;
        float sum = Isa::row_sum(acc[(g * V + r / Isa::kRowsPerVec) * kGroup + i], r % Isa::kRowsPerVec);
        // Fused, spelled out: left to contraction, the two kernels' tails
        // compiled to different roundings.
        for (std::int64_t c = k8; c < k; ++c) sum = std::fma(tail[c - k8], xi[c], sum);
        const std::int64_t j = j0 + g * R + r;
        y[(b0 + i) * n + j] = bias ? sum + bias[j] : sum;
      }
}

// y = x · wᵀ (+ bias) over the packed w: the full blocks in groups (of
// Isa::kStreams blocks when streamed, else one), split among the OpenMP
// threads, then the last block when n is not a multiple of kGemmBlockRows. It
// needs no target of its own: the vector work is all in row_blocks.
template <class Isa>
void run_small_batch_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                          const float* bias, float* y) {
  constexpr std::int64_t kRows = kGemmBlockRows;
  static_assert(kRows == 4, "one case per block height");
  const bool streamed = m <= Isa::kStreamUpToRows;
  const std::int64_t per_group = streamed ? Isa::kStreams : 1;
  const std::int64_t full = n / kRows;
  const std::int64_t groups = (full + per_group - 1) / per_group;
#pragma omp parallel for schedule(static) if (omp_get_max_threads() > 1)
  for (std::int64_t group = 0; group < groups; ++group) {
    const std::int64_t j0 = group * per_group * kRows;
    const auto blocks = static_cast<int>(std::min(per_group, full - group * per_group));
    for (std::int64_t b0 = 0; b0 < m; b0 += kGroup) {
      const auto batch = static_cast<int>(std::min<std::int64_t>(kGroup, m - b0));
      row_blocks<Isa, 4>(j0, blocks, streamed, b0, batch, n, k, x, w, bias, y);
    }
  }
  const std::int64_t j0 = full * kRows;
  for (std::int64_t b0 = 0; b0 < m && j0 < n; b0 += kGroup) {
    const auto batch = static_cast<int>(std::min<std::int64_t>(kGroup, m - b0));
    switch (n - j0) {
      case 3: row_blocks<Isa, 3>(j0, 1, streamed, b0, batch, n, k, x, w, bias, y); break;
      case 2: row_blocks<Isa, 2>(j0, 1, streamed, b0, batch, n, k, x, w, bias, y); break;
      default: row_blocks<Isa, 1>(j0, 1, streamed, b0, batch, n, k, x, w, bias, y); break;
    }
  }
}

}  // namespace
}  // namespace tpb::detail
