#pragma once
// The decode step's product y = x · wᵀ (+ bias): x is (m, k) row-major, w an
// (n, k) weight stored in the panel order below, y is (m, n). At the batch
// sizes of decoding the weight read is the cost, so the kernel reads each
// weight once from memory and does every batch row's multiply-adds on that one
// read; general GEMMs pack and tile for large m and pay 2-4x above the weight
// read there (docs/MEASUREMENT.md, "The small-batch GEMM").
//
// Weight order: rows are taken in panels of kGemmPanelRows (the last panel
// holds the n % kGemmPanelRows left over, when there are any). A panel of P
// rows occupies the same P·k floats as its rows would row-major, column by
// column: column c's P values, in row order, at c·P. So one 8-float load is
// one column of a full panel, and the kernel multiplies it by one batch value
// broadcast to every lane: one FMA updates eight outputs of a batch row. The
// packed tensor has exactly the bytes of the row-major one, and a weight can be
// written straight into this order (the cpu backend's fill_synthetic and
// upload), with no second copy.
//
// Summation order, fixed: every output is one chain of fused multiply-adds
// over the k columns in increasing order, starting from zero, then the bias
// added. It depends on nothing else (not m, not the blocking, not the thread
// count, not the instruction set: the portable path takes the same chain with
// std::fma), so the kernel is bit-identical run to run, a batch row's result
// does not depend on its batch, and a row shard of w (packed on its own) gives
// the same outputs as the whole w.
#include <cstdint>

// The AVX2 kernel is compiled for x86-64 with GCC or clang (it relies on
// per-function target attributes); elsewhere only the portable path exists.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TPB_GEMM_X86_KERNELS 1
#else
#define TPB_GEMM_X86_KERNELS 0
#endif

namespace tpb {

inline constexpr std::int64_t kGemmPanelRows = 8;

// Where logical element (r, c) of an (n, k) weight sits in the packed order.
inline std::int64_t packed_weight_offset(std::int64_t n, std::int64_t k, std::int64_t r, std::int64_t c) {
  const std::int64_t j0 = r - r % kGemmPanelRows;
  const std::int64_t rows = n - j0 < kGemmPanelRows ? n - j0 : kGemmPanelRows;
  return j0 * k + c * rows + (r - j0);
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
  avx2_fma,  // x86-64 with AVX2 and FMA (AVX-512 CPUs included): small_batch_gemm_avx2.cpp
  portable,  // any CPU: the same chains in plain C++ with std::fma, the same bits
};

const char* to_string(GemmIsa isa);

// Whether this CPU can run `isa`, read once from the CPU's feature flags.
bool gemm_isa_supported(GemmIsa isa);

// The instruction set this process uses: avx2_fma where the CPU has it, else
// portable, so every call of a run takes the same path.
GemmIsa small_batch_gemm_isa();

// How the AVX2 kernel reads the weight for a batch of m rows, fixed in code
// from the measurement in bench/archive/2026-12-03-gemm-panel-kernel, so every
// rank and every run reads the same way. It takes `panels` full panels side by
// side (that many streams from memory) and, in the pass that reads them, the
// first `read_rows` batch rows; the other rows follow in passes over the same
// columns from L1, at most `tile_rows` rows each, the first of them
// prefetching the next columns. The accumulators of one pass (panels × rows,
// one register each) plus the panels' weight registers and a broadcast stay
// within AVX2's 16 registers. On one idle core of an AMD EPYC, interleaved on
// llama-3.2-1b's shapes:
// - m = 1, 2: 4 panels, every row in the one pass (one stream reads slower
//   than several there);
// - m = 4: 4 panels with 2 rows, then a 2-row tile, ahead of 3 panels with
//   all 4 rows in 11 of 12 shape-runs (0.78-1.10 of the limit against
//   0.72-0.85);
// - m ≥ 5: 3 panels with 4 rows, then 4-row tiles; at m = 8 ahead of 2 panels
//   (6 + 2 or 4 + 4 rows), of 1 panel with all 8, of 4 panels with 2-row
//   tiles, and of 3 panels with 2 rows then tiles of 4.
struct PanelPlan {
  int panels;
  int read_rows;
  int tile_rows;
};
PanelPlan small_batch_gemm_plan(std::int64_t m);

// y = x · wᵀ (+ bias, a row of n when not null), w packed, any m, n, k ≥ 1.
// With more than one OpenMP thread the panels of w are split among them.
void small_batch_gemm(GemmIsa isa, std::int64_t m, std::int64_t n, std::int64_t k, const float* x,
                      const float* w_packed, const float* bias, float* y);

namespace detail {
// The AVX2 kernel (small_batch_gemm_avx2.cpp), defined only where TPB_GEMM_X86_KERNELS is 1.
void small_batch_gemm_avx2(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                           const float* bias, float* y);
}  // namespace detail

}  // namespace tpb
