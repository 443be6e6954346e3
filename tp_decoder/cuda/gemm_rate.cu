// The step's GEMM rate (gemm_rate.hpp).
#include "tp_decoder/cuda/gemm_rate.hpp"

#include <cuda_bf16.h>

#include "common/cuda_check.hpp"
#include "tp_decoder/cuda/gemm.cuh"            // linear, use_step_numerics
#include "tp_decoder/cuda/probe_timing.cuh"    // ProbeBuffers, PassTimer
#include "tp_decoder/cuda/synthetic_fill.cuh"  // fill_synthetic

namespace tpb {
namespace {

using bf16 = __nv_bfloat16;

// A cuBLAS handle on `stream` with the step's numerics, destroyed on every way out.
class StepCublas {
 public:
  explicit StepCublas(cudaStream_t stream) {
    CUBLAS_CHECK(cublasCreate(&handle_));
    try {
      CUBLAS_CHECK(cublasSetStream(handle_, stream));
      gpu::use_step_numerics(handle_);
    } catch (...) {
      cublasDestroy(handle_);
      throw;
    }
  }
  StepCublas(const StepCublas&) = delete;
  StepCublas& operator=(const StepCublas&) = delete;
  ~StepCublas() { cublasDestroy(handle_); }
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// rows x cols of the step's synthetic weight values: the GEMM multiplies
// numbers like the step's, not zeros (a tensor core draws less power on zeros).
bf16* filled(gpu::ProbeBuffers& buffers, int rows, int cols, std::uint64_t key, cudaStream_t stream) {
  bf16* matrix = buffers.allocate<bf16>(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  const TensorSlice slice{rows, cols, 0, rows, 0, cols};
  gpu::fill_synthetic(matrix, slice, 1, key, linear_init(cols), stream);
  return matrix;
}

}  // namespace

std::vector<double> measure_gemm_GFLOPs(const GemmRateOptions& options) {
  TPB_CHECK(options.m > 0 && options.n > 0 && options.k > 0 && options.iters > 0 && options.warmup >= 0,
            "gemm rate: m, n, k and iters must be positive");
  gpu::ProbeBuffers buffers;  // freed after the timer's stream is done with them
  gpu::PassTimer timer;
  const StepCublas cublas(timer.stream());
  const bf16* x = filled(buffers, options.m, options.k, 1, timer.stream());
  const bf16* w = filled(buffers, options.n, options.k, 2, timer.stream());
  bf16* y = buffers.allocate<bf16>(static_cast<std::size_t>(options.m) * static_cast<std::size_t>(options.n));
  const double flops = 2.0 * options.m * static_cast<double>(options.n) * options.k;
  return timer.rates(
      options.warmup, options.iters,
      [&] { gpu::linear(cublas.get(), y, CUDA_R_16BF, x, w, options.m, options.n, options.k, false); },
      [&](double ms) { return flops / (ms * 1e6); });
}

}  // namespace tpb
