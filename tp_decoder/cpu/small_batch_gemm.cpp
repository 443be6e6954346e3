#include "tp_decoder/cpu/small_batch_gemm.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace tpb {

namespace {

// Calls move(logical_index, packed_index) for every element of rows
// [row_begin, row_begin + rows), panel by panel (so the threads write disjoint
// panels) and column by column within one (so the packed side is written, or
// read, in order).
template <typename Move>
void for_each_element(std::int64_t n, std::int64_t k, std::int64_t row_begin, std::int64_t rows, Move move) {
  const std::int64_t first = row_begin / kGemmPanelRows;
  const std::int64_t last = (row_begin + rows - 1) / kGemmPanelRows;
#pragma omp parallel for schedule(static) if (rows > 64 && omp_get_max_threads() > 1)
  for (std::int64_t panel = first; panel <= last; ++panel) {
    const std::int64_t j0 = panel * kGemmPanelRows;
    const std::int64_t panel_rows = std::min(kGemmPanelRows, n - j0);
    const std::int64_t r0 = std::max(j0, row_begin), r1 = std::min(j0 + panel_rows, row_begin + rows);
    for (std::int64_t c = 0; c < k; ++c)
      for (std::int64_t r = r0; r < r1; ++r) move((r - row_begin) * k + c, j0 * k + c * panel_rows + (r - j0));
  }
}

// One panel at a time against every batch row: the panel's P·k floats stay in
// the cache across the batch, so the weight is read from memory once.
void small_batch_gemm_portable(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                               const float* bias, float* y) {
  const std::int64_t panels = (n + kGemmPanelRows - 1) / kGemmPanelRows;
#pragma omp parallel for schedule(static) if (omp_get_max_threads() > 1)
  for (std::int64_t panel = 0; panel < panels; ++panel) {
    const std::int64_t j0 = panel * kGemmPanelRows;
    const std::int64_t rows = std::min(kGemmPanelRows, n - j0);
    const float* wp = w + j0 * k;
    for (std::int64_t i = 0; i < m; ++i) {
      const float* xi = x + i * k;
      float sum[kGemmPanelRows] = {};
      for (std::int64_t c = 0; c < k; ++c)
        for (std::int64_t r = 0; r < rows; ++r) sum[r] = std::fma(wp[c * rows + r], xi[c], sum[r]);
      for (std::int64_t r = 0; r < rows; ++r) y[i * n + j0 + r] = bias ? sum[r] + bias[j0 + r] : sum[r];
    }
  }
}

}  // namespace

void pack_weight_rows(std::int64_t n, std::int64_t k, std::int64_t row_begin, std::int64_t rows,
                      const float* logical, float* packed) {
  if (rows <= 0) return;
  for_each_element(n, k, row_begin, rows, [&](std::int64_t from, std::int64_t to) { packed[to] = logical[from]; });
}

void unpack_weight_rows(std::int64_t n, std::int64_t k, std::int64_t row_begin, std::int64_t rows,
                        const float* packed, float* logical) {
  if (rows <= 0) return;
  for_each_element(n, k, row_begin, rows, [&](std::int64_t to, std::int64_t from) { logical[to] = packed[from]; });
}

const char* to_string(GemmIsa isa) { return isa == GemmIsa::avx2_fma ? "avx2+fma" : "portable"; }

bool gemm_isa_supported(GemmIsa isa) {
  switch (isa) {
#if TPB_GEMM_X86_KERNELS
    // __builtin_cpu_supports also checks that the OS saves the wider registers.
    case GemmIsa::avx2_fma: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    case GemmIsa::portable: return true;
    default: return false;
  }
}

GemmIsa small_batch_gemm_isa() {
  static const GemmIsa isa = gemm_isa_supported(GemmIsa::avx2_fma) ? GemmIsa::avx2_fma : GemmIsa::portable;
  return isa;
}

PanelPlan small_batch_gemm_plan(std::int64_t m) {
  if (m <= 2) return {4, static_cast<int>(m), 2};
  if (m == 4) return {4, 2, 2};
  return {3, std::min(static_cast<int>(m), 4), 4};
}

void small_batch_gemm(GemmIsa isa, std::int64_t m, std::int64_t n, std::int64_t k, const float* x,
                      const float* w_packed, const float* bias, float* y) {
#if TPB_GEMM_X86_KERNELS
  if (isa == GemmIsa::avx2_fma) return detail::small_batch_gemm_avx2(m, n, k, x, w_packed, bias, y);
#endif
  (void)isa;
  small_batch_gemm_portable(m, n, k, x, w_packed, bias, y);
}

}  // namespace tpb
