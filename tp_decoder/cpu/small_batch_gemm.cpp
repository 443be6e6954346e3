#include "tp_decoder/cpu/small_batch_gemm.hpp"

#include <omp.h>

namespace tpb {

const char* to_string(GemmIsa isa) { return isa == GemmIsa::avx2_fma ? "avx2+fma" : "portable"; }

GemmIsa small_batch_gemm_isa() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const GemmIsa isa =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? GemmIsa::avx2_fma : GemmIsa::portable;
  return isa;
#else
  return GemmIsa::portable;
#endif
}

GemmRows small_batch_gemm_rows(GemmIsa isa) {
  // From jobs/bench_cpu_gemm.sh (docs/MEASUREMENT.md): from 2 rows up the AVX2
  // kernel beats OpenBLAS sgemm on every projection shape measured; at one row
  // sgemv reads the weight as fast or faster. The portable path, without fused
  // multiply-adds, is held to m ≤ 8, where the weight read still bounds it.
  switch (isa) {
    case GemmIsa::avx2_fma: return {2, 32};
    case GemmIsa::portable: return {2, 8};
  }
  return {0, -1};
}

void small_batch_gemm(GemmIsa isa, std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                      const float* bias, float* y) {
  if (isa == GemmIsa::avx2_fma)
    detail::small_batch_gemm_avx2(m, n, k, x, w, bias, y);
  else
    detail::small_batch_gemm_portable(m, n, k, x, w, bias, y);
}

namespace detail {

// One weight row at a time against every batch row: the row (k floats) stays in
// L1 across the batch, so the weight is read from memory once.
void small_batch_gemm_portable(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                               const float* bias, float* y) {
  const std::int64_t k8 = k - k % 8;
#pragma omp parallel for schedule(static) if (omp_get_max_threads() > 1)
  for (std::int64_t j = 0; j < n; ++j) {
    const float* wj = w + j * k;
    for (std::int64_t i = 0; i < m; ++i) {
      const float* xi = x + i * k;
      float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (std::int64_t c = 0; c < k8; c += 8)
        for (int l = 0; l < 8; ++l) lane[l] += wj[c + l] * xi[c + l];
      // The AVX2 path's tree: halves, then pairs, then the last two.
      const float q0 = lane[0] + lane[4], q1 = lane[1] + lane[5], q2 = lane[2] + lane[6], q3 = lane[3] + lane[7];
      float sum = (q0 + q2) + (q1 + q3);
      for (std::int64_t c = k8; c < k; ++c) sum += wj[c] * xi[c];
      y[i * n + j] = bias ? sum + bias[j] : sum;
    }
  }
}

}  // namespace detail
}  // namespace tpb
