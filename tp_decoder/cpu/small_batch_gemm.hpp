#pragma once
// The decode step's small-batch product y = x · wᵀ (+ bias): x is (m, k), w is
// (n, k), both row-major, y is (m, n). At the batch sizes of decoding the weight
// read is the cost, so the kernel reads each weight row block once from memory
// and takes the dot products of every batch row from that one read; general
// GEMMs pack and tile for large m and pay 2-4x above the weight read there
// (docs/MEASUREMENT.md, "The small-batch GEMM").
//
// Summation order, fixed: every output is eight lane sums over k (lane l takes
// the columns c < k - k % 8 with c % 8 == l, in increasing c), joined by one
// fixed tree, then the k % 8 tail columns in order, then the bias. It depends on
// nothing else (not m, not the blocking, not the thread count), so the kernel is
// bit-identical run to run, a batch row's result does not depend on its batch,
// and a row shard of w gives the same outputs as the whole w.
#include <cstdint>

namespace tpb {

enum class GemmIsa {
  avx2_fma,  // x86-64 with AVX2 and FMA: the kernel of small_batch_gemm_avx2.cpp
  portable,  // any CPU: the same order in plain C++ (multiply then add, no fused rounding)
};

const char* to_string(GemmIsa isa);

// The instruction set this process uses: AVX2 + FMA when the CPU has both, read
// once, so every call of a run takes the same path.
GemmIsa small_batch_gemm_isa();

// The batches the kernel takes on `isa`; outside them the backend calls
// OpenBLAS (sgemv for one row, sgemm above). A table fixed in code from the
// measurement in docs/MEASUREMENT.md, never tuned at run time, so every run and
// every rank uses the same kernel.
struct GemmRows {
  int min, max;
};
GemmRows small_batch_gemm_rows(GemmIsa isa);

// y = x · wᵀ (+ bias, a row of n when not null), any m, n, k ≥ 1. With more
// than one OpenMP thread the output rows of w are split among them.
void small_batch_gemm(GemmIsa isa, std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                      const float* bias, float* y);

namespace detail {
void small_batch_gemm_portable(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                               const float* bias, float* y);
void small_batch_gemm_avx2(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                           const float* bias, float* y);
}  // namespace detail

}  // namespace tpb
