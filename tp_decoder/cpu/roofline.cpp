#include "tp_decoder/cpu/roofline.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

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

// The read probes, with the kernel's load width, read the array as
// kReadStreams runs of kReadRunFloats side by side (then the next
// kReadStreams runs), with no software prefetch: one core of an AMD EPYC read
// 1.3-1.9x faster from four streams 32 KiB apart than from one (bench_cpu_gemm's
// read_GBps against one_GBps), and OpenBLAS's
// sgemv, which reads four weight rows at once, beat a one-stream probe by up
// to 1.2x (bench/archive/2026-12-03-gemm-row-block-avx2). The limit is the fastest read found, so the
// probe takes it. What is left past the last whole group is read as one stream.
constexpr int kReadStreams = 4;
constexpr std::int64_t kReadRunFloats = 8192;

#define TPB_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

// Calls take(s, run) for every Step floats of the runs in the order above,
// stream s's at `run`, and returns how many floats that took: the whole
// groups, the caller reading what is left as one stream. `take` keeps its
// sums in its own members, which stay in registers once it is inlined.
template <std::int64_t Step, typename Take>
TPB_AVX2_INLINE std::int64_t read_four_streams(const float* v, std::int64_t count, Take& take) {
  constexpr std::int64_t kGroupFloats = kReadStreams * kReadRunFloats;
  std::int64_t i = 0;
  for (; i + kGroupFloats <= count; i += kGroupFloats)
    for (std::int64_t c = 0; c < kReadRunFloats; c += Step)
#pragma GCC unroll 4
      for (int s = 0; s < kReadStreams; ++s) take(s, v + i + s * kReadRunFloats + c);
  return i;
}

// The read probe's step: 16 floats of a stream into its own sum.
struct SumStep {
  __m256 acc[kReadStreams];
  TPB_AVX2_INLINE void operator()(int s, const float* run) {
    acc[s] = _mm256_add_ps(acc[s], _mm256_add_ps(_mm256_loadu_ps(run), _mm256_loadu_ps(run + 8)));
  }
};

__attribute__((target("avx2,fma"))) float avx2_sum(const float* v, std::int64_t count) {
  SumStep step{{_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()}};
  std::int64_t i = read_four_streams<16>(v, count, step);
  __m256* acc = step.acc;
  for (; i + 8 <= count; i += 8) acc[0] = _mm256_add_ps(acc[0], _mm256_loadu_ps(v + i));
  const __m256 total = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, total);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  for (; i < count; ++i) sum += v[i];
  return sum;
}

// read_with_fmas's step: one vector of stream s, X multiply-adds of it.
// Chain (s·X + f) mod kChains takes stream s's f-th: with X = 16, 64 FMAs a
// group step over 12 chains, none waits on the FMA latency. Every loop over
// the chains is unrolled, or GCC keeps them in memory.
template <int X>
struct FmaStep {
  __m256 acc[kChains];
  const float* xs;
  TPB_AVX2_INLINE void operator()(int s, const float* run) {
    const __m256 w = _mm256_loadu_ps(run);
#pragma GCC unroll 16
    for (int f = 0; f < X; ++f) {
      __m256& chain = acc[(s * X + f) % kChains];
      chain = _mm256_fmadd_ps(w, _mm256_broadcast_ss(xs + f), chain);
    }
  }
};

// read_with_fmas with X multiply-adds per vector, the vectors read as avx2_sum
// reads them.
template <int X>
__attribute__((target("avx2,fma"))) float avx2_read_fmas(const float* v, std::int64_t count, const float* xs) {
  FmaStep<X> step{{}, xs};  // the chains from zero
  std::int64_t i = read_four_streams<8>(v, count, step);
  for (; i + 8 <= count; i += 8) step(0, v + i);
  __m256 total = step.acc[0];
#pragma GCC unroll 12
  for (int c = 1; c < kChains; ++c) total = _mm256_add_ps(total, step.acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, total);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  for (; i < count; ++i)
    for (int f = 0; f < X; ++f) sum += v[i] * xs[f];
  return sum;
}

using ReadFmas = float (*)(const float*, std::int64_t, const float*);

// avx2_read_fmas<1> .. avx2_read_fmas<kMaxReadFmas>, by X - 1.
template <int... I>
constexpr std::array<ReadFmas, sizeof...(I)> read_fmas_table(std::integer_sequence<int, I...>) {
  return {&avx2_read_fmas<I + 1>...};
}
constexpr auto kAvx2ReadFmas = read_fmas_table(std::make_integer_sequence<int, kMaxReadFmas>{});
#endif

// One chain per multiply-add of a vector, 8 lanes each, which the compiler
// vectorises.
float portable_read_fmas(const float* v, std::int64_t count, const float* xs, int fmas) {
  float acc[kMaxReadFmas][8] = {};
  std::int64_t i = 0;
  for (; i + 8 <= count; i += 8)
    for (int f = 0; f < fmas; ++f)
      for (int l = 0; l < 8; ++l) acc[f][l] += v[i + l] * xs[f];
  float sum = 0;
  for (int f = 0; f < fmas; ++f)
    for (int l = 0; l < 8; ++l) sum += acc[f][l];
  for (; i < count; ++i)
    for (int f = 0; f < fmas; ++f) sum += v[i] * xs[f];
  return sum;
}

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

double read_pass_GBps(const float* array, std::size_t count) {
  const auto start = Clock::now();
  float sum = 0;
  // Each thread reads its contiguous share, as the first touch laid it out,
  // with the single-core probe below.
#pragma omp parallel reduction(+ : sum)
  {
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    const auto thread = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t begin = count * thread / threads, end = count * (thread + 1) / threads;
    sum += sum_floats(array + begin, static_cast<std::int64_t>(end - begin));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  volatile float sink = sum;  // keeps the pass from being optimised away
  (void)sink;
  return static_cast<double>(count * sizeof(float)) / seconds / 1e9;
}

float sum_floats(const float* v, std::int64_t count) {
#if TPB_HAVE_X86_VECTORS
  if (small_batch_gemm_isa() == GemmIsa::avx2_fma) return avx2_sum(v, count);
#endif
  return sum_floats_one_stream(v, count);
}

float sum_floats_one_stream(const float* v, std::int64_t count) {
  float lanes[32] = {};
  std::int64_t i = 0;
  for (; i + 32 <= count; i += 32)
    for (int l = 0; l < 32; ++l) lanes[l] += v[i + l];
  float sum = 0;
  for (float lane : lanes) sum += lane;
  for (; i < count; ++i) sum += v[i];
  return sum;
}

float read_with_fmas(const float* v, std::int64_t count, const float* xs, int fmas) {
  if (fmas < 1 || fmas > kMaxReadFmas)
    throw std::invalid_argument("read_with_fmas: " + std::to_string(fmas) + " multiply-adds per vector, not 1 to " +
                                std::to_string(kMaxReadFmas));
#if TPB_HAVE_X86_VECTORS
  if (small_batch_gemm_isa() == GemmIsa::avx2_fma) return kAvx2ReadFmas[static_cast<std::size_t>(fmas - 1)](v, count, xs);
#endif
  return portable_read_fmas(v, count, xs, fmas);
}

float fma_chains(double flops) {
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
