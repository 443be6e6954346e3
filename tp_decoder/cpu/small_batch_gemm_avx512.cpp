// The AVX-512 small-batch kernel: the driver of small_batch_gemm_driver.hpp
// over 16-lane registers. Compiled with per-function target attributes, not
// -mavx512f for the file, so nothing here runs on a CPU without AVX-512 unless
// small_batch_gemm_isa() chose it.
//
// Same packed order and same summation order as the AVX2 kernel, so the two
// give the same bits: a 16-lane register holds one 8-column group of two
// weight rows side by side (the packed order puts row r + 1's 8 columns right
// after row r's), and the batch row's 8 columns are broadcast to both halves.
// Lane l of each half then takes exactly the FMAs that lane l of the AVX2
// kernel's 8-lane accumulator takes, in the same order, and each half is
// reduced by the same tree. What changes is the width: each FMA does two rows'
// work, and the 32 registers hold a tile of 4 weight rows × 8 batch rows.
#include <cstdint>

#include "tp_decoder/cpu/small_batch_gemm.hpp"

#if TPB_GEMM_X86_KERNELS
#define TPB_GEMM_TARGET __attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma")))
#include "tp_decoder/cpu/small_batch_gemm_driver.hpp"

namespace tpb::detail {
namespace {

struct Avx512 {
  using Vec = __m512;
  static constexpr int kRowsPerVec = 2;
  // Set on gate_up, one core, weight in memory (docs/MEASUREMENT.md):
  // 1024-column chunks store and reload the accumulators a quarter as often as
  // 256 (on a weight held in L2, m = 16 went from about 0.6 to 0.7 of the FMA
  // peak), and 8 KiB ahead streamed faster than 2, 4 or 16 KiB at every m.
  static constexpr std::int64_t kChunk = 1024;
  static constexpr std::int64_t kPrefetchFloats = 2048;
  // 2 weight registers (4 rows) × 8 rows are 16 accumulators, plus 8 batch
  // and 1 weight register, within 32; 8 rows give 16 FMAs per 10 loads, which
  // two FMA pipes and the load ports sustain.
  static constexpr int kMaxTile = 8;
  // Always prefetched: the streamed pass was measured on an AVX2-only core.
  static constexpr int kStreams = 1;
  static constexpr int kStreamedRows = 1;
  static constexpr std::int64_t kStreamUpToRows = 0;

  // With R odd the last vector holds one row: its low 8 lanes, the upper half
  // zero.
  template <int R>
  TPB_GEMM_TARGET static Vec load_weights(const float* w, int v) {
    constexpr __mmask16 last = R % 2 ? __mmask16{0x00FF} : __mmask16{0xFFFF};
    return 2 * (v + 1) <= R ? _mm512_loadu_ps(w + 16 * v) : _mm512_maskz_loadu_ps(last, w + 16 * v);
  }
  // The zero-masked form with every lane set is the same vbroadcastf32x8;
  // GCC 12's unmasked intrinsic warns about its undefined pass-through.
  TPB_GEMM_TARGET static Vec load_x(const float* x) {
    return _mm512_maskz_broadcast_f32x8(0xFFFF, _mm256_loadu_ps(x));
  }
  TPB_GEMM_TARGET static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  TPB_GEMM_TARGET static Vec zero() { return _mm512_setzero_ps(); }
  // Row slot `slot` is half `slot` of the register, reduced by the AVX2
  // kernel's tree. The low half by an extract too: GCC 12's
  // _mm512_castps512_ps256 goes through an undefined vector and warns
  // -Wmaybe-uninitialized (GCC bug 105593).
  TPB_GEMM_TARGET static float row_sum(Vec both, int slot) {
    return lane_tree(slot ? _mm512_maskz_extractf32x8_ps(0xFF, both, 1) : _mm512_maskz_extractf32x8_ps(0xFF, both, 0));
  }
};

}  // namespace

void small_batch_gemm_avx512(std::int64_t m, std::int64_t n, std::int64_t k, const float* x, const float* w,
                             const float* bias, float* y) {
  run_small_batch_gemm<Avx512>(m, n, k, x, w, bias, y);
}

}  // namespace tpb::detail

#endif
