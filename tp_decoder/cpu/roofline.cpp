#include "tp_decoder/cpu/roofline.hpp"

#include <algorithm>
#include <chrono>

#include "tp_decoder/cpu/small_batch_gemm.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TPB_HAVE_X86_VECTORS 1
#endif

namespace tpb {
namespace {

using Clock = std::chrono::steady_clock;

// Chains of one multiply-add each, enough of them to cover the FMA latency of
// two pipes (4-5 cycles × 2); the operands stay in registers.
constexpr int kChains = 12;

#if TPB_HAVE_X86_VECTORS
__attribute__((target("avx2,fma"))) float avx2_fma_chains(long steps) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(static_cast<float>(c) * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long s = 0; s < steps; ++s)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  return _mm256_cvtss_f32(sum);
}
#endif

#if TPB_HAVE_X86_VECTORS
// The same chains 16 lanes wide: the peak of the instructions the AVX-512
// kernel issues (on a core with full-width AVX-512 units, twice the AVX2 one).
__attribute__((target("avx512f,fma"))) float avx512_fma_chains(long steps) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(static_cast<float>(c) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long s = 0; s < steps; ++s)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  return lanes[0] + lanes[15];  // a value to keep, as the AVX2 chains return lane 0
}

// The read probe with the kernel's load width.
__attribute__((target("avx512f"))) float avx512_sum(const float* v, std::int64_t count) {
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  std::int64_t i = 0;
  for (; i + 64 <= count; i += 64)
#pragma GCC unroll 4
    for (int a = 0; a < 4; ++a) acc[a] = _mm512_add_ps(acc[a], _mm512_loadu_ps(v + i + 16 * a));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
  float sum = 0;
  for (float lane : lanes) sum += lane;
  for (; i < count; ++i) sum += v[i];
  return sum;
}

__attribute__((target("avx2,fma"))) float avx2_sum(const float* v, std::int64_t count) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  std::int64_t i = 0;
  for (; i + 32 <= count; i += 32)
#pragma GCC unroll 4
    for (int a = 0; a < 4; ++a) acc[a] = _mm256_add_ps(acc[a], _mm256_loadu_ps(v + i + 8 * a));
  const __m256 total = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, total);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  for (; i < count; ++i) sum += v[i];
  return sum;
}
#endif

float portable_chains(long steps) {
  float acc[kChains][8];
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < 8; ++l) acc[c][l] = static_cast<float>(c * 8 + l) * 1e-3f;
  for (long s = 0; s < steps; ++s)
    for (int c = 0; c < kChains; ++c)
      for (int l = 0; l < 8; ++l) acc[c][l] = acc[c][l] * 0.999999f + 1e-7f;
  float sum = 0;
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < 8; ++l) sum += acc[c][l];
  return sum;
}

}  // namespace

double read_pass_GBps(const double* array, std::size_t count) {
  const auto start = Clock::now();
  double sum = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
  for (std::size_t i = 0; i < count; ++i) sum += array[i];
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  volatile double sink = sum;  // keeps the pass from being optimised away
  (void)sink;
  return static_cast<double>(count * sizeof(double)) / seconds / 1e9;
}

float sum_floats(const float* v, std::int64_t count) {
#if TPB_HAVE_X86_VECTORS
  if (small_batch_gemm_isa() == GemmIsa::avx512) return avx512_sum(v, count);
  if (small_batch_gemm_isa() == GemmIsa::avx2_fma) return avx2_sum(v, count);
#endif
  float lanes[32] = {};
  std::int64_t i = 0;
  for (; i + 32 <= count; i += 32)
    for (int l = 0; l < 32; ++l) lanes[l] += v[i + l];
  float sum = 0;
  for (float lane : lanes) sum += lane;
  for (; i < count; ++i) sum += v[i];
  return sum;
}

float fma_chains(double flops) {
#if TPB_HAVE_X86_VECTORS
  if (small_batch_gemm_isa() == GemmIsa::avx512)
    return avx512_fma_chains(static_cast<long>(flops / (2.0 * 16.0 * kChains)) + 1);
#endif
  const auto steps = static_cast<long>(flops / (2.0 * 8.0 * kChains)) + 1;
#if TPB_HAVE_X86_VECTORS
  if (small_batch_gemm_isa() == GemmIsa::avx2_fma) return avx2_fma_chains(steps);
#endif
  return portable_chains(steps);
}

double fma_peak_GFLOPs(int passes) {
  constexpr double kFlops = 2.0 * 8.0 * kChains * (1 << 22);
  double best = 0;
  volatile float sink = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const auto start = Clock::now();
    sink = sink + fma_chains(kFlops);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best = std::max(best, kFlops / seconds / 1e9);
  }
  return best;
}

}  // namespace tpb
