#pragma once
// The decode step's product y = x · wᵀ (+ bias): x is (m, k) row-major, w an
// (n, k) weight stored in the row-block order below, y is (m, n). At the batch
// sizes of decoding the weight read is the cost, so the kernel reads each
// weight once from memory, as one contiguous stream, and takes the dot products
// of every batch row from that one read; general GEMMs pack and tile for large m
// and pay 2-4x above the weight read there (docs/MEASUREMENT.md, "The
// small-batch GEMM").
//
// Weight order: rows are taken in blocks of kGemmBlockRows (the last block holds
// the n % kGemmBlockRows left over, when there are any). A block of R rows
// occupies the same R·k floats as its rows would row-major, in the order the
// kernel reads them: the 8-column groups of the first k - k % 8 columns, each
// group holding its 8 columns of row 0, then of row 1, ... row R - 1; then the
// k % 8 tail columns of row 0, row 1, ... So the packed tensor has exactly the
// bytes of the row-major one, and a weight can be written straight into this
// order (the cpu backend's fill_synthetic and upload), with no second copy.
//
// Summation order, fixed: every output is eight lane sums over k (lane l takes
// the columns c < k - k % 8 with c % 8 == l, in increasing c), joined by one
// fixed tree, then the k % 8 tail columns in order (fused multiply-adds on the
// AVX paths, so AVX-512 and AVX2 agree bit for bit), then the bias. It depends on
// nothing else (not m, not the blocking, not the thread count), so the kernel is
// bit-identical run to run, a batch row's result does not depend on its batch,
// and a row shard of w (packed on its own) gives the same outputs as the whole w.
#include <cstdint>

// The AVX kernels are compiled for x86-64 with GCC or clang (they rely on
// per-function target attributes); elsewhere only the portable path exists.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TPB_GEMM_X86_KERNELS 1
#else
#define TPB_GEMM_X86_KERNELS 0
#endif

namespace tpb {

inline constexpr std::int64_t kGemmBlockRows = 4;

// Where logical element (r, c) of an (n, k) weight sits in the packed order.
inline std::int64_t packed_weight_offset(std::int64_t n, std::int64_t k, std::int64_t r, std::int64_t c) {
  const std::int64_t j0 = r - r % kGemmBlockRows;
  const std::int64_t rows = n - j0 < kGemmBlockRows ? n - j0 : kGemmBlockRows;
  const std::int64_t k8 = k - k % 8;
  const std::int64_t in_block = c < k8 ? (c / 8) * rows * 8 + (r - j0) * 8 + c % 8
                                       : k8 * rows + (r - j0) * (k - k8) + (c - k8);
  return j0 * k + in_block;
}

// Rows [row_begin, row_begin + rows) of an (n, k) weight, given row-major in
// `logical`, written to their places in `packed` (the whole packed weight).
void pack_weight_rows(std::int64_t n, std::int64_t k, std::int64_t row_begin, std::int64_t rows,
                      const float* logical, float* packed);
// The reverse: rows [row_begin, row_begin + rows) of the packed (n, k) weight
// back in row-major order.
void unpack_weight_rows(std::int64_t n, std::int64_t k, std::int64_t row_begin, std::int64_t rows,
                        const float* packed, float* logical);

enum class GemmIsa {
  avx512,    // x86-64 with AVX-512 F/DQ/VL: small_batch_gemm_avx512.cpp, the AVX2 kernel's bits
  avx2_fma,  // x86-64 with AVX2 and FMA: the kernel of small_batch_gemm_avx2.cpp
  portable,  // any CPU: the same order in plain C++ (multiply then add, no fused rounding)
};

const char* to_string(GemmIsa isa);

// The instruction sets this CPU can run, widest first, read once from the
// CPU's feature flags.
bool gemm_isa_supported(GemmIsa isa);

// The instruction set this process uses: the first of avx512, avx2_fma,
// portable the CPU supports, so every call of a run takes the same path.
GemmIsa small_batch_gemm_isa();
// The kernel a product of `m` batch rows runs: small_batch_gemm_isa(), except
// that where it is avx512 a batch of at most kAvx2UpToRows rows takes the AVX2
// kernel (the same bits). On one idle core, four interleaved runs of
// jobs/bench_cpu_gemm.sh on llama-3.2-1b's shapes had the AVX2 kernel ahead at
// m = 4 in 17 of 20 shape-runs (by up to 0.17 of the limit), the two within
// noise of each other at m = 1 and 2 (each ahead in about half), and AVX-512
// ahead at m = 8 and 16 (docs/MEASUREMENT.md).
inline constexpr std::int64_t kAvx2UpToRows = 4;
GemmIsa small_batch_gemm_isa(std::int64_t m);

// How the AVX2 kernel reads the weight (small_batch_gemm_driver.hpp): up to
// kAvx2StreamedUpToRows batch rows it reads kAvx2StreamedBlocks row blocks side
// by side with no software prefetch (all the batch rows in that one pass where
// there are at most kAvx2StreamedRows), above that one block at a time with one.
// On one idle core of an AMD EPYC (AVX2 only), interleaved on llama-3.2-1b's
// shapes, against a four-stream read: streamed 1.00-1.13 at m = 1 and
// 0.76-0.78 at m = 4, prefetched 0.73 and 0.67-0.72; at m = 8 prefetched was
// ahead, 0.54-0.60 against 0.46-0.54 (docs/MEASUREMENT.md). The AVX-512
// kernel always prefetches: it was set on an Intel core. An AVX-512 CPU still
// runs the streamed read where small_batch_gemm_isa(m) hands it the AVX2
// kernel (m <= kAvx2UpToRows), and no AVX-512 CPU has measured it there.
inline constexpr int kAvx2StreamedBlocks = 3;
inline constexpr int kAvx2StreamedRows = 3;  // batch rows the streamed pass takes
inline constexpr std::int64_t kAvx2StreamedUpToRows = 4;
// Row blocks the kernel `isa` reads side by side for a batch of m rows (1: one
// stream, prefetched).
int small_batch_gemm_streams(GemmIsa isa, std::int64_t m);

// y = x · wᵀ (+ bias, a row of n when not null), w packed, any m, n, k ≥ 1.
// With more than one OpenMP thread the row blocks of w are split among them.
void small_batch_gemm(GemmIsa isa, std::int64_t m, std::int64_t n, std::int64_t k, const float* x,
                      const float* w_packed, const float* bias, float* y);

namespace detail {
// The two AVX kernels are defined only where TPB_GEMM_X86_KERNELS is 1.
void small_batch_gemm_portable(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                               const float* bias, float* y);
void small_batch_gemm_avx2(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                           const float* bias, float* y);
void small_batch_gemm_avx512(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                             const float* bias, float* y);
}  // namespace detail

}  // namespace tpb
