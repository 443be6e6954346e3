// The AVX2 + FMA small-batch kernel. Compiled with per-function target
// attributes, not -mavx2 for the file, so nothing here runs on a CPU without
// AVX2 unless small_batch_gemm_isa() chose it.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tp_decoder/cpu/small_batch_gemm.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define TPB_AVX2 __attribute__((target("avx2,fma")))

namespace tpb::detail {
namespace {

// A block is kGemmBlockRows weight rows, packed so that its R·k floats are one
// contiguous stream (small_batch_gemm.hpp), and the blocks follow each other:
// the whole weight is one stream. A block's columns are taken kChunk at a time,
// and each chunk is multiplied by every batch tile before the next: the chunk
// (R KiB) stays in L1 for the tiles after the first. Every tile pass also
// prefetches the stream kPrefetchFloats ahead, so the memory read goes on while
// the later tiles compute from L1; without it the read and the FMAs took turns
// and a batch of 4-16 rows reached about half of max(read, FMA) time
// (docs/MEASUREMENT.md). Past the weight's end the prefetches are dropped.
constexpr int kRows = static_cast<int>(kGemmBlockRows);
constexpr std::int64_t kChunk = 256;
constexpr std::int64_t kPrefetchFloats = 4096;  // 16 KiB, four 4-row chunks
// Batch rows per tile: 4 × 3 accumulators + 3 activation vectors + 1 weight
// vector are the 16 ymm registers.
constexpr int kMaxTile = 3;
// Batch rows whose accumulators one block keeps at once (a larger batch is
// taken in groups; the weight block is then read once per group).
constexpr int kGroup = 33;

// w is the block's start; the 8-column group at column c holds its R rows'
// vectors side by side at w + c·R.
template <int R, int M>
TPB_AVX2 inline void tile_pass(const float* w, const float* x, std::int64_t k, std::int64_t c0, std::int64_t c1,
                               __m256* acc) {
  __m256 a[R][M];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int i = 0; i < M; ++i) a[r][i] = acc[r * M + i];
  for (std::int64_t c = c0; c < c1; c += 8) {
    __m256 xv[M];
#pragma GCC unroll 3
    for (int i = 0; i < M; ++i) xv[i] = _mm256_loadu_ps(x + i * k + c);
    // This step reads R · 32 bytes of the stream: as many bytes are prefetched
    // (an address, not a pointer, as it may lie past the weight).
    const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(w + c * R) + kPrefetchFloats * 4;
#pragma GCC unroll 2
    for (int line = 0; line < R * 32; line += 64)
      _mm_prefetch(reinterpret_cast<const char*>(ahead + static_cast<std::uintptr_t>(line)), _MM_HINT_T0);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 wv = _mm256_loadu_ps(w + c * R + r * 8);
#pragma GCC unroll 3
      for (int i = 0; i < M; ++i) a[r][i] = _mm256_fmadd_ps(wv, xv[i], a[r][i]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int i = 0; i < M; ++i) acc[r * M + i] = a[r][i];
}

template <int R>
TPB_AVX2 inline void tile_pass(int tile, const float* w, const float* x, std::int64_t k, std::int64_t c0,
                               std::int64_t c1, __m256* acc) {
  static_assert(kMaxTile == 3, "one case per tile size");
  switch (tile) {
    case 1: tile_pass<R, 1>(w, x, k, c0, c1, acc); break;
    case 2: tile_pass<R, 2>(w, x, k, c0, c1, acc); break;
    default: tile_pass<R, 3>(w, x, k, c0, c1, acc); break;
  }
}

// The fixed tree of small_batch_gemm.hpp: halves, then pairs, then the last two.
TPB_AVX2 inline float lane_sum(__m256 v) {
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
}

// Rows [j0, j0 + R) of y for batch rows [b0, b0 + rows).
template <int R>
TPB_AVX2 void row_block(std::int64_t j0, std::int64_t b0, int rows, std::int64_t n, std::int64_t k, const float* x,
                        const float* w, const float* bias, float* y) {
  alignas(32) __m256 acc[R * kGroup];
  for (int i = 0; i < R * rows; ++i) acc[i] = _mm256_setzero_ps();
  const float* wb = w + j0 * k;
  const float* xb = x + b0 * k;
  // Tiles of at most kMaxTile rows, as even as they can be (4 = 2 + 2, not 3 + 1).
  const int tiles = (rows + kMaxTile - 1) / kMaxTile;
  const std::int64_t k8 = k - k % 8;
  for (std::int64_t c0 = 0; c0 < k8; c0 += kChunk) {
    const std::int64_t c1 = std::min(c0 + kChunk, k8);
    int first = 0;
    for (int t = 0; t < tiles; ++t) {
      const int size = rows / tiles + (t < rows % tiles ? 1 : 0);
      tile_pass<R>(size, wb, xb + first * k, k, c0, c1, acc + R * first);
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
        float sum = lane_sum(acc[R * first + r * size + i]);
        // Fused, spelled out: left to contraction, the two kernels' tails
        // compiled to different roundings.
        for (std::int64_t c = k8; c < k; ++c) sum = std::fma(tail[c - k8], xi[c], sum);
        const std::int64_t j = j0 + r;
        y[(b0 + first + i) * n + j] = bias ? sum + bias[j] : sum;
      }
    first += size;
  }
}

}  // namespace

void small_batch_gemm_avx2(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                           const float* bias, float* y) {
  const std::int64_t blocks = (n + kRows - 1) / kRows;
#pragma omp parallel for schedule(static) if (omp_get_max_threads() > 1)
  for (std::int64_t block = 0; block < blocks; ++block) {
    const std::int64_t j0 = block * kRows;
    const auto rows_here = static_cast<int>(std::min<std::int64_t>(kRows, n - j0));
    for (std::int64_t b0 = 0; b0 < m; b0 += kGroup) {
      const auto batch = static_cast<int>(std::min<std::int64_t>(kGroup, m - b0));
      switch (rows_here) {
        case 4: row_block<4>(j0, b0, batch, n, k, x, w, bias, y); break;
        case 3: row_block<3>(j0, b0, batch, n, k, x, w, bias, y); break;
        case 2: row_block<2>(j0, b0, batch, n, k, x, w, bias, y); break;
        default: row_block<1>(j0, b0, batch, n, k, x, w, bias, y); break;
      }
    }
  }
}

}  // namespace tpb::detail

#else

namespace tpb::detail {
// Never chosen off x86-64 (small_batch_gemm_isa() says portable there).
void small_batch_gemm_avx2(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                           const float* bias, float* y) {
  small_batch_gemm_portable(m, n, k, x, w, bias, y);
}
}  // namespace tpb::detail

#endif
