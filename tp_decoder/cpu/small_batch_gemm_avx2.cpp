// The AVX2 + FMA small-batch kernel on the panel order of small_batch_gemm.hpp.
// Compiled with per-function target attributes, not -mavx2 for the file, so
// nothing here runs on a CPU without AVX2 unless small_batch_gemm_isa() chose it.
//
// A pass takes G panels side by side over a range of columns: per column, one
// load per panel (eight rows' values), one broadcast per batch row, and G FMAs
// per batch row, each accumulating eight outputs in a register. The first pass
// over a range reads the weight from memory; where the batch has more rows
// than it takes, the other rows follow in passes over the same range, which is
// then in L1 (the read plan, small_batch_gemm_plan).
#include <cstdint>

#include "tp_decoder/cpu/small_batch_gemm.hpp"

#if TPB_GEMM_X86_KERNELS
#include <immintrin.h>
#include <omp.h>

#include <algorithm>

#define TPB_AVX2 __attribute__((target("avx2,fma")))

namespace tpb::detail {
namespace {

constexpr std::int64_t kPanel = kGemmPanelRows;
static_assert(kPanel == 8, "one column of a full panel is one 8-lane register");

// Batch rows whose accumulators a group of panels keeps at once: a larger
// batch is taken in groups, and the weight is then read once per group.
constexpr int kBatchGroup = 32;

// Columns per range where later passes follow from L1: 3 panels of 64
// columns are 6 KiB, and the next range, prefetched, as much again. On the AMD
// core of bench/archive/2026-12-03-gemm-panel-kernel 64 columns were ahead of 128 at m = 8 and 16 on
// every shape (by 0.03-0.12 of the limit), of 256 by more, and level with 32.
constexpr std::int64_t kChunk = 64;

// Rows one pass over G panels takes: G·rows accumulators + G weight registers
// + a broadcast within the 16 registers, and at most 4 (what the plan uses).
template <int G>
constexpr int kMaxPassRows = std::min(4, (15 - G) / G);

// Column c of G panels against M batch rows (row i at x + i·k), into a[g][i].
// Full panels (of 8 rows) start every 8·k floats from w; otherwise there is
// one, the weight's last, of `width` < 8 rows, read under `mask`. With
// Prefetch it also prefetches, for each panel, the float `ahead` floats past
// column c's.
template <int G, int M, bool Full, bool Prefetch>
TPB_AVX2 inline __attribute__((always_inline)) void panel_column(const float* w, std::int64_t width, __m256i mask,
                                                                const float* x, std::int64_t k, std::int64_t c,
                                                                std::int64_t ahead, __m256 (&a)[G][M]) {
  if constexpr (Prefetch) {
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g) {
      // An address, not a pointer: past the weight's last panel it lies
      // beyond the weight, where a prefetch is dropped.
      const std::uintptr_t line = reinterpret_cast<std::uintptr_t>(w + g * kPanel * k) +
                                  static_cast<std::uintptr_t>((c * width + ahead) * 4);
      _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T0);
    }
  }
  __m256 wv[G];
#pragma GCC unroll 4
  for (int g = 0; g < G; ++g)
    wv[g] = Full ? _mm256_loadu_ps(w + g * kPanel * k + c * kPanel) : _mm256_maskload_ps(w + c * width, mask);
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
    const __m256 xb = _mm256_broadcast_ss(x + i * k + c);
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g) a[g][i] = _mm256_fmadd_ps(wv[g], xb, a[g][i]);
  }
}

// Columns per loop step of a pass: the loop's own increments and compare are
// paid once per four columns. On the AMD core of bench/archive/2026-12-03-gemm-overlap this was
// ahead of one column per step at m = 8 in 12 of 12 shape-runs and at m = 16
// in 10 of 12 (by 0.03 of the limit on average), and at m = 1 in 4 of 4; two
// or eight columns per step were behind one.
constexpr std::int64_t kColumnsPerStep = 4;

// Columns [c0, c1) of G panels against M batch rows, panel g's accumulator for
// batch row i at acc[g · kBatchGroup + i]. With PrefetchNext the pass also
// prefetches one cache line per panel every other column, `ahead` floats past
// the column's: the next range. c0 is 0 or a multiple of kChunk, so the even
// columns of a step are its first and third.
template <int G, int M, bool Full, bool PrefetchNext>
TPB_AVX2 inline void panel_pass(const float* w, std::int64_t width, __m256i mask, const float* x, std::int64_t k,
                                std::int64_t c0, std::int64_t c1, std::int64_t ahead, __m256* acc) {
  static_assert(kColumnsPerStep % 2 == 0, "a step starts on an even column");
  __m256 a[G][M];
#pragma GCC unroll 4
  for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) a[g][i] = acc[g * kBatchGroup + i];
  std::int64_t c = c0;
  for (; c + kColumnsPerStep <= c1; c += kColumnsPerStep)
#pragma GCC unroll 4
    for (int u = 0; u < kColumnsPerStep; ++u) {
      if (u % 2 == 0)
        panel_column<G, M, Full, PrefetchNext>(w, width, mask, x, k, c + u, ahead, a);
      else
        panel_column<G, M, Full, false>(w, width, mask, x, k, c + u, ahead, a);
    }
  for (; c < c1; ++c) {
    if (c % 2 == 0)
      panel_column<G, M, Full, PrefetchNext>(w, width, mask, x, k, c, ahead, a);
    else
      panel_column<G, M, Full, false>(w, width, mask, x, k, c, ahead, a);
  }
#pragma GCC unroll 4
  for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) acc[g * kBatchGroup + i] = a[g][i];
}

// panel_pass for `rows` rows, 1 ≤ rows ≤ kMaxPassRows<G>, as a template
// argument so that the accumulators stay in registers.
template <int G, bool Full, bool PrefetchNext, int M = 1>
TPB_AVX2 inline void pass_rows(int rows, const float* w, std::int64_t width, __m256i mask, const float* x,
                               std::int64_t k, std::int64_t c0, std::int64_t c1, std::int64_t ahead, __m256* acc) {
  if constexpr (M < kMaxPassRows<G>) {
    if (rows > M) return pass_rows<G, Full, PrefetchNext, M + 1>(rows, w, width, mask, x, k, c0, c1, ahead, acc);
  }
  panel_pass<G, M, Full, PrefetchNext>(w, width, mask, x, k, c0, c1, ahead, acc);
}

// Rows [j0, j0 + G·width) of y for `rows` batch rows (x and y at the group's
// first row), the panels at w: the plan's first pass from memory, the other
// rows in tiles as even as they can be (with 4: 12 = 4 + 4 + 4, 6 = 3 + 3).
// The first tile prefetches the next range: the tiles read only L1, so the
// hardware prefetcher sees no misses to follow and the memory would idle
// until the next range's first pass. On the AMD core of bench/archive/2026-12-03-gemm-panel-kernel
// this took m = 8 from 0.59-0.68 to 0.68-0.85 of the limit and m = 16 from
// 0.52-0.65 to 0.56-0.71 (with 128-column ranges). From the last range it
// prefetches the next group's first range, which otherwise starts cold: ahead
// in 20 of 24 shape-runs at m = 8 and 16 (by up to 0.18 of the limit, 0.04 on
// average) and level or ahead at m = 4. Prefetching from the first pass
// instead, or two ranges ahead, was slower, and splitting the lines between
// the first pass and the tile, or among the tiles, was not consistently
// faster (at m = 8 ahead in 11 of 12 shape-runs in one set of runs, in 5 of 12
// in the next).
template <int G, bool Full>
TPB_AVX2 void panel_group(const float* w, std::int64_t width, std::int64_t j0, std::int64_t n, std::int64_t k,
                          const float* x, int rows, const PanelPlan& plan, const float* bias, float* y) {
  alignas(32) __m256 acc[G * kBatchGroup];
  for (int g = 0; g < G; ++g)
    for (int i = 0; i < rows; ++i) acc[g * kBatchGroup + i] = _mm256_setzero_ps();
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(width)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const int first = std::min({rows, plan.read_rows, kMaxPassRows<G>});
  const int rest = rows - first;
  const int tile = std::min(plan.tile_rows, kMaxPassRows<G>);
  const int tiles = (rest + tile - 1) / tile;
  const std::int64_t chunk = rest > 0 ? kChunk : k;
  for (std::int64_t c0 = 0; c0 < k; c0 += chunk) {
    const std::int64_t c1 = std::min(c0 + chunk, k);
    pass_rows<G, Full, false>(first, w, width, mask, x, k, c0, c1, 0, acc);
    int row = first;
    for (int t = 0; t < tiles; ++t) {
      const int size = rest / tiles + (t < rest % tiles ? 1 : 0);
      // The next range's first column is kChunk columns on, or, from the last
      // range, the next group's first (G panels on, column 0).
      const std::int64_t ahead = c1 < k ? kChunk * width : G * kPanel * k - c0 * width;
      if (t == 0)
        pass_rows<G, Full, true>(size, w, width, mask, x + row * k, k, c0, c1, ahead, acc + row);
      else
        pass_rows<G, Full, false>(size, w, width, mask, x + row * k, k, c0, c1, 0, acc + row);
      row += size;
    }
  }
  for (int g = 0; g < G; ++g) {
    const std::int64_t j = j0 + g * kPanel;
    const __m256 b = !bias ? _mm256_setzero_ps() : Full ? _mm256_loadu_ps(bias + j) : _mm256_maskload_ps(bias + j, mask);
    for (int i = 0; i < rows; ++i) {
      // sum + bias, or the sum alone: adding +0 would turn a -0 sum into +0.
      const __m256 out = bias ? _mm256_add_ps(acc[g * kBatchGroup + i], b) : acc[g * kBatchGroup + i];
      if (Full)
        _mm256_storeu_ps(y + i * n + j, out);
      else
        _mm256_maskstore_ps(y + i * n + j, mask, out);
    }
  }
}

// One group of `panels` full panels, 1 ≤ panels ≤ 4.
TPB_AVX2 void full_panels(int panels, const float* w, std::int64_t j0, std::int64_t n, std::int64_t k,
                          const float* x, int rows, const PanelPlan& plan, const float* bias, float* y) {
  switch (panels) {
    case 4: return panel_group<4, true>(w, kPanel, j0, n, k, x, rows, plan, bias, y);
    case 3: return panel_group<3, true>(w, kPanel, j0, n, k, x, rows, plan, bias, y);
    case 2: return panel_group<2, true>(w, kPanel, j0, n, k, x, rows, plan, bias, y);
    default: return panel_group<1, true>(w, kPanel, j0, n, k, x, rows, plan, bias, y);
  }
}

}  // namespace

// The full panels in groups of plan.panels (the last group may hold fewer),
// split among the OpenMP threads, then the last panel when n is not a multiple
// of 8; batch groups of kBatchGroup rows one after the other.
void small_batch_gemm_avx2(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                           const float* bias, float* y) {
  const std::int64_t full = n / kPanel;
  for (std::int64_t b0 = 0; b0 < m; b0 += kBatchGroup) {
    const auto rows = static_cast<int>(std::min<std::int64_t>(kBatchGroup, m - b0));
    const PanelPlan plan = small_batch_gemm_plan(rows);
    const float* xb = x + b0 * k;
    float* yb = y + b0 * n;
    const std::int64_t groups = (full + plan.panels - 1) / plan.panels;
#pragma omp parallel for schedule(static) if (omp_get_max_threads() > 1)
    for (std::int64_t group = 0; group < groups; ++group) {
      const std::int64_t first_panel = group * plan.panels;
      const auto panels = static_cast<int>(std::min<std::int64_t>(plan.panels, full - first_panel));
      const std::int64_t j0 = first_panel * kPanel;
      full_panels(panels, w + j0 * k, j0, n, k, xb, rows, plan, bias, yb);
    }
    const std::int64_t j0 = full * kPanel;
    if (j0 < n) panel_group<1, false>(w + j0 * k, n - j0, j0, n, k, xb, rows, plan, bias, yb);
  }
}

}  // namespace tpb::detail

#endif
