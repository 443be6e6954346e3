// cuBLAS linear layer (gemm.cuh).
#include "common/cuda_check.hpp"
#include "tp_decoder/cuda/gemm.cuh"

namespace tpb::gpu {

void use_step_numerics(cublasHandle_t handle) {
  CUBLAS_CHECK(cublasSetMathMode(
      handle, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
}

void linear(cublasHandle_t handle, void* y, cudaDataType_t y_type, const __nv_bfloat16* x, const __nv_bfloat16* w,
            int m, int n, int k, bool accumulate) {
  TPB_CHECK(m > 0 && n > 0 && k > 0, "linear: m, n and k must be positive");
  TPB_CHECK(y_type == CUDA_R_16BF || y_type == CUDA_R_32F, "linear: y must be bf16 or fp32");
  // cuBLAS is column-major. Row-major y (m, n) is column-major y^T (n, m), and
  //   y^T = w . x^T
  // where row-major w (n, k) read column-major is w^T (k, n) with ld k: op T
  // turns it back into w; row-major x (m, k) read column-major is x^T (k, m), op N.
  const float alpha = 1.0f;
  const float beta = accumulate ? 1.0f : 0.0f;
  CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, w, CUDA_R_16BF, k, x, CUDA_R_16BF, k,
                            &beta, y, y_type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace tpb::gpu
