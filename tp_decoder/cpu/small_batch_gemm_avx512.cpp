// The AVX-512 small-batch kernel. Compiled with per-function target
// attributes, not -mavx512f for the file, so nothing here runs on a CPU without
// AVX-512 unless small_batch_gemm_isa() chose it.
//
// Same packed order and same summation order as the AVX2 kernel, so the two
// give the same bits: a 16-lane register holds one 8-column group of two
// weight rows side by side (the packed order puts row r + 1's 8 columns right
// after row r's), and the batch row's 8 columns are broadcast to both halves.
// Lane l of each half then takes exactly the FMAs that lane l of the AVX2
// kernel's 8-lane accumulator takes, in the same order, and each half is
// reduced by the same tree. What changes is the width: each FMA does two rows'
// work, and the 32 registers hold a tile of 4 weight rows × 8 batch rows.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tp_decoder/cpu/small_batch_gemm.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define TPB_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma")))

namespace tpb::detail {
namespace {

// The blocking of the AVX2 kernel (small_batch_gemm_avx2.cpp says why): chunks
// of kChunk columns of one block stay in L1 across the batch tiles, and each
// tile pass prefetches the stream kPrefetchFloats ahead. Both were set on
// gate_up, one core, weight in memory (docs/MEASUREMENT.md): 1024-column
// chunks store and reload the accumulators a quarter as often as 256 (on a
// weight held in L2, m = 16 went from about 0.6 to 0.7 of the FMA peak), and
// 8 KiB ahead streamed faster than 2, 4 or 16 KiB at every m.
constexpr int kRows = static_cast<int>(kGemmBlockRows);
constexpr std::int64_t kChunk = 1024;
constexpr std::int64_t kPrefetchFloats = 2048;  // 8 KiB
// Batch rows per tile: 2 weight registers (4 rows) × 8 rows are 16
// accumulators, plus 2 weight and up to 8 broadcast registers, within 32; 8
// rows give 16 FMAs per 10 loads, which two FMA pipes and the load ports
// sustain.
constexpr int kMaxTile = 8;
// Batch rows whose accumulators one block keeps at once (as the AVX2 kernel).
constexpr int kGroup = 33;
// A block of R rows fills (R + 1) / 2 registers per 8-column group; with R odd
// the last one holds one row (mask: its low 8 lanes), its upper half zero.
template <int R>
constexpr int kVectors = (R + 1) / 2;
template <int R>
constexpr __mmask16 kLastMask = R % 2 ? __mmask16{0x00FF} : __mmask16{0xFFFF};

// w is the block's start; the 8-column group at column c holds its R rows'
// 8-float runs side by side at w + c·R.
template <int R, int M>
TPB_AVX512 inline void tile_pass(const float* w, const float* x, std::int64_t k, std::int64_t c0, std::int64_t c1,
                                 __m512* acc) {
  constexpr int V = kVectors<R>;
  __m512 a[V][M];
#pragma GCC unroll 2
  for (int v = 0; v < V; ++v)
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) a[v][i] = acc[v * M + i];
  for (std::int64_t c = c0; c < c1; c += 8) {
    const float* wc = w + c * R;
    // This step reads R · 32 bytes of the stream: as many bytes are prefetched
    // (an address, not a pointer, as it may lie past the weight).
    const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(wc) + kPrefetchFloats * 4;
#pragma GCC unroll 2
    for (int line = 0; line < R * 32; line += 64)
      _mm_prefetch(reinterpret_cast<const char*>(ahead + static_cast<std::uintptr_t>(line)), _MM_HINT_T0);
    __m512 wv[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v)
      wv[v] = v + 1 < V ? _mm512_loadu_ps(wc + 16 * v) : _mm512_maskz_loadu_ps(kLastMask<R>, wc + 16 * v);
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      // The zero-masked form with every lane set is the same vbroadcastf32x8;
      // GCC 12's unmasked intrinsic warns about its undefined pass-through.
      const __m512 xv = _mm512_maskz_broadcast_f32x8(0xFFFF, _mm256_loadu_ps(x + i * k + c));
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) a[v][i] = _mm512_fmadd_ps(wv[v], xv, a[v][i]);
    }
  }
#pragma GCC unroll 2
  for (int v = 0; v < V; ++v)
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) acc[v * M + i] = a[v][i];
}

template <int R>
TPB_AVX512 inline void tile_pass(int tile, const float* w, const float* x, std::int64_t k, std::int64_t c0,
                                 std::int64_t c1, __m512* acc) {
  static_assert(kMaxTile == 8, "one case per tile size");
  switch (tile) {
    case 1: tile_pass<R, 1>(w, x, k, c0, c1, acc); break;
    case 2: tile_pass<R, 2>(w, x, k, c0, c1, acc); break;
    case 3: tile_pass<R, 3>(w, x, k, c0, c1, acc); break;
    case 4: tile_pass<R, 4>(w, x, k, c0, c1, acc); break;
    case 5: tile_pass<R, 5>(w, x, k, c0, c1, acc); break;
    case 6: tile_pass<R, 6>(w, x, k, c0, c1, acc); break;
    case 7: tile_pass<R, 7>(w, x, k, c0, c1, acc); break;
    default: tile_pass<R, 8>(w, x, k, c0, c1, acc); break;
  }
}

// The fixed tree of small_batch_gemm.hpp (halves, then pairs, then the last
// two) on one 8-lane half.
TPB_AVX512 inline float lane_sum(__m256 v) {
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
}

// Rows [j0, j0 + R) of y for batch rows [b0, b0 + rows).
template <int R>
TPB_AVX512 void row_block(std::int64_t j0, std::int64_t b0, int rows, std::int64_t n, std::int64_t k, const float* x,
                          const float* w, const float* bias, float* y) {
  constexpr int V = kVectors<R>;
  alignas(64) __m512 acc[V * kGroup];
  for (int i = 0; i < V * rows; ++i) acc[i] = _mm512_setzero_ps();
  const float* wb = w + j0 * k;
  const float* xb = x + b0 * k;
  // Tiles of at most kMaxTile rows, as even as they can be (16 = 8 + 8, 12 = 6 + 6).
  const int tiles = (rows + kMaxTile - 1) / kMaxTile;
  const std::int64_t k8 = k - k % 8;
  for (std::int64_t c0 = 0; c0 < k8; c0 += kChunk) {
    const std::int64_t c1 = std::min(c0 + kChunk, k8);
    int first = 0;
    for (int t = 0; t < tiles; ++t) {
      const int size = rows / tiles + (t < rows % tiles ? 1 : 0);
      tile_pass<R>(size, wb, xb + first * k, k, c0, c1, acc + V * first);
      first += size;
    }
  }
  int first = 0;
  for (int t = 0; t < tiles; ++t) {
    const int size = rows / tiles + (t < rows % tiles ? 1 : 0);
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < size; ++i) {
        // Row r is half r % 2 of register r / 2. The low half by an extract
        // too: GCC 12's _mm512_castps512_ps256 goes through an undefined
        // vector and warns -Wmaybe-uninitialized (GCC bug 105593).
        const __m512 both = acc[V * first + (r / 2) * size + i];
        const __m256 half = r % 2 ? _mm512_maskz_extractf32x8_ps(0xFF, both, 1)
                                  : _mm512_maskz_extractf32x8_ps(0xFF, both, 0);
        const float* tail = wb + k8 * R + r * (k - k8);
        const float* xi = xb + (first + i) * k;
        float sum = lane_sum(half);
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

void small_batch_gemm_avx512(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
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
void small_batch_gemm_avx512(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                             const float* bias, float* y) {
  small_batch_gemm_portable(m, n, k, x, w, bias, y);
}
}  // namespace tpb::detail

#endif
