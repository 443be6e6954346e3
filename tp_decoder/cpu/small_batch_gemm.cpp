#include "tp_decoder/cpu/small_batch_gemm.hpp"

#include <omp.h>

#include <cstring>

namespace tpb {

namespace {

// Calls copy(i, c, offset, count) for every run of `count` columns starting at
// column c of row row_begin + i that is contiguous in both orders (each 8-column
// group, then the tail), `offset` being its packed place.
template <typename Copy>
void for_each_run(std::int64_t n, std::int64_t k, std::int64_t row_begin, std::int64_t rows, Copy copy) {
  const std::int64_t k8 = k - k % 8;
#pragma omp parallel for schedule(static) if (rows > 64 && omp_get_max_threads() > 1)
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t r = row_begin + i;
    for (std::int64_t c = 0; c < k8; c += 8) copy(i, c, packed_weight_offset(n, k, r, c), std::int64_t{8});
    if (k8 < k) copy(i, k8, packed_weight_offset(n, k, r, k8), k - k8);
  }
}

}  // namespace

void pack_weight_rows(std::int64_t n, std::int64_t k, std::int64_t row_begin, std::int64_t rows,
                      const float* logical, float* packed) {
  for_each_run(n, k, row_begin, rows, [&](std::int64_t i, std::int64_t c, std::int64_t offset, std::int64_t count) {
    std::memcpy(packed + offset, logical + i * k + c, static_cast<std::size_t>(count) * 4);
  });
}

void unpack_weight_rows(std::int64_t n, std::int64_t k, std::int64_t row_begin, std::int64_t rows,
                        const float* packed, float* logical) {
  for_each_run(n, k, row_begin, rows, [&](std::int64_t i, std::int64_t c, std::int64_t offset, std::int64_t count) {
    std::memcpy(logical + i * k + c, packed + offset, static_cast<std::size_t>(count) * 4);
  });
}

const char* to_string(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::avx512: return "avx512";
    case GemmIsa::avx2_fma: return "avx2+fma";
    default: return "portable";
  }
}

bool gemm_isa_supported(GemmIsa isa) {
  switch (isa) {
#if TPB_GEMM_X86_KERNELS
    // __builtin_cpu_supports also checks that the OS saves the wider registers.
    case GemmIsa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
    case GemmIsa::avx2_fma: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    case GemmIsa::portable: return true;
    default: return false;
  }
}

GemmIsa small_batch_gemm_isa() {
  static const GemmIsa isa = gemm_isa_supported(GemmIsa::avx512)     ? GemmIsa::avx512
                             : gemm_isa_supported(GemmIsa::avx2_fma) ? GemmIsa::avx2_fma
                                                                     : GemmIsa::portable;
  return isa;
}

GemmIsa small_batch_gemm_isa(std::int64_t m) {
  // Read once: every matmul of the step asks.
  static const bool avx2_for_small_batches =
      small_batch_gemm_isa() == GemmIsa::avx512 && gemm_isa_supported(GemmIsa::avx2_fma);
  return avx2_for_small_batches && m <= kAvx2UpToRows ? GemmIsa::avx2_fma : small_batch_gemm_isa();
}

int small_batch_gemm_streams(GemmIsa isa, std::int64_t m) {
  return isa == GemmIsa::avx2_fma && m <= kAvx2StreamedUpToRows ? kAvx2StreamedBlocks : 1;
}

void small_batch_gemm(GemmIsa isa, std::int64_t m, std::int64_t n, std::int64_t k, const float* x,
                      const float* w_packed, const float* bias, float* y) {
  switch (isa) {
#if TPB_GEMM_X86_KERNELS
    case GemmIsa::avx512: detail::small_batch_gemm_avx512(m, n, k, x, w_packed, bias, y); break;
    case GemmIsa::avx2_fma: detail::small_batch_gemm_avx2(m, n, k, x, w_packed, bias, y); break;
#endif
    default: detail::small_batch_gemm_portable(m, n, k, x, w_packed, bias, y); break;
  }
}

namespace detail {

// One weight row at a time against every batch row: the row's k floats (spread
// over its block) stay in L1 across the batch, so the weight is read from memory
// once.
void small_batch_gemm_portable(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                               const float* bias, float* y) {
  const std::int64_t k8 = k - k % 8;
#pragma omp parallel for schedule(static) if (omp_get_max_threads() > 1)
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t j0 = j - j % kGemmBlockRows;
    const std::int64_t rows = n - j0 < kGemmBlockRows ? n - j0 : kGemmBlockRows;
    const float* group = w + j0 * k + (j - j0) * 8;  // this row's first 8-column group
    const float* tail = w + j0 * k + k8 * rows + (j - j0) * (k - k8);
    for (std::int64_t i = 0; i < m; ++i) {
      const float* xi = x + i * k;
      float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (std::int64_t c = 0; c < k8; c += 8) {
        const float* wc = group + c * rows;
        for (int l = 0; l < 8; ++l) lane[l] += wc[l] * xi[c + l];
      }
      // The AVX2 path's tree: halves, then pairs, then the last two.
      const float q0 = lane[0] + lane[4], q1 = lane[1] + lane[5], q2 = lane[2] + lane[6], q3 = lane[3] + lane[7];
      float sum = (q0 + q2) + (q1 + q3);
      for (std::int64_t c = k8; c < k; ++c) sum += tail[c - k8] * xi[c];
      y[i * n + j] = bias ? sum + bias[j] : sum;
    }
  }
}

}  // namespace detail
}  // namespace tpb
