// The AVX2 + FMA small-batch kernel: the driver of small_batch_gemm_driver.hpp
// over 8-lane registers, each holding one weight row's 8-column group.
// Compiled with per-function target attributes, not -mavx2 for the file, so
// nothing here runs on a CPU without AVX2 unless small_batch_gemm_isa() chose it.
#include <cstdint>

#include "tp_decoder/cpu/small_batch_gemm.hpp"

#if TPB_GEMM_X86_KERNELS
#define TPB_GEMM_TARGET __attribute__((target("avx2,fma")))
#include "tp_decoder/cpu/small_batch_gemm_driver.hpp"

namespace tpb::detail {
namespace {

struct Avx2 {
  using Vec = __m256;
  static constexpr int kRowsPerVec = 1;
  // Chunks of 256 columns (R KiB of a block) and, where prefetched, the stream
  // prefetched 16 KiB (four 4-row chunks) ahead.
  static constexpr std::int64_t kChunk = 256;
  static constexpr std::int64_t kPrefetchFloats = 4096;
  // Streamed up to kAvx2StreamedUpToRows (small_batch_gemm.hpp), over three
  // blocks: 3 × 4 accumulators + 1 batch vector + 1 weight vector.
  static constexpr int kStreams = kAvx2StreamedBlocks;
  static constexpr int kStreamedRows = kAvx2StreamedRows;
  static constexpr std::int64_t kStreamUpToRows = kAvx2StreamedUpToRows;
  // 4 × 3 accumulators + 3 batch vectors + 1 weight vector are the 16 ymm
  // registers.
  static constexpr int kMaxTile = 3;

  template <int R>
  TPB_GEMM_TARGET static Vec load_weights(const float* w, int v) {
    return _mm256_loadu_ps(w + 8 * v);
  }
  TPB_GEMM_TARGET static Vec load_x(const float* x) { return _mm256_loadu_ps(x); }
  TPB_GEMM_TARGET static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  TPB_GEMM_TARGET static Vec zero() { return _mm256_setzero_ps(); }
  TPB_GEMM_TARGET static float row_sum(Vec v, int /*slot: always 0*/) { return lane_tree(v); }
};

}  // namespace

void small_batch_gemm_avx2(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                           const float* bias, float* y) {
  run_small_batch_gemm<Avx2>(m, n, k, x, w, bias, y);
}

}  // namespace tpb::detail

#endif
