#pragma once
// The two ceilings of a matmul on one core, measured on the machine itself:
// the read bandwidth (STREAM-like, as mpi_bench membw reads) and the FMA peak
// of the instruction set the small-batch kernel uses. A product of m rows
// against an (n, k) fp32 weight cannot take less than
//   max(4 n k / bandwidth, 2 m n k / peak).
#include <cstddef>
#include <cstdint>

namespace tpb {

// Bytes of `array` summed per second by the calling OpenMP threads, each
// reading its contiguous share with sum_floats, GB = 1e9 B. `array` holds
// `count` floats.
double read_pass_GBps(const float* array, std::size_t count);

// The sum of `count` floats on the calling thread, in enough independent
// vector chains that the read, not the add latency, bounds it: one core's
// read of those bytes, with the vector width of small_batch_gemm_isa(), taken
// as four streams side by side (a core reads several streams faster than one).
float sum_floats(const float* v, std::int64_t count);

// The same sum as one stream in 32 independent lanes (which the compiler
// vectorises): the portable path of sum_floats, and what the bench shows
// beside it.
float sum_floats_one_stream(const float* v, std::int64_t count);

// The read of sum_floats with a product's flops done as it goes: for every
// 8 floats loaded, `fmas` multiply-adds of them by a broadcast xs[i]
// (i < fmas), into register chains. That is an m-row product's bytes and
// flops (fmas = m) with no layout to follow: how close this core comes to the
// limit when it must read and compute at once, which bench_cpu_gemm prints
// beside the kernels. 1 ≤ fmas ≤ kMaxReadFmas. Returns the sum over all chains,
// Σ v · Σ xs up to rounding.
constexpr int kMaxReadFmas = 16;
float read_with_fmas(const float* v, std::int64_t count, const float* xs, int fmas);

// About `flops` floating-point operations (2 per FMA lane) on the calling
// thread, in independent FMA chains that never touch memory, of the width the
// kernel of small_batch_gemm_isa() uses: 8-lane AVX2 FMAs (avx2_fma), plain
// multiply-adds otherwise.
// Returns a value to keep, so the work is not optimised away.
float fma_chains(double flops);

// Single-thread fused multiply-add rate in GFLOP/s, best of `passes` timed
// passes of fma_chains.
double fma_peak_GFLOPs(int passes);

// The limit above, in microseconds.
inline double matmul_limit_us(std::int64_t m, std::int64_t n, std::int64_t k, double read_GBps, double peak_GFLOPs) {
  const double bytes_us = 4.0 * static_cast<double>(n) * static_cast<double>(k) / (read_GBps * 1e3);
  const double flops_us = 2.0 * static_cast<double>(m * n) * static_cast<double>(k) / (peak_GFLOPs * 1e3);
  return bytes_us > flops_us ? bytes_us : flops_us;
}

}  // namespace tpb
