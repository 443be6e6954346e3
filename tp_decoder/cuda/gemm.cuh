#pragma once
// The decoder's linear layers on cuBLAS: y = x . w^T with bf16 x and w
// (PyTorch Linear layout, w is (n, k) row-major), fp32 accumulation, and y in
// bf16 (activations) or fp32 (logits).
#include <cublas_v2.h>
#include <cuda_bf16.h>

namespace tpb::gpu {

// The step's cuBLAS numerics on `handle`: split-K partial sums in fp32 too, not
// in the bf16 output type (cuBLAS's default allows that).
void use_step_numerics(cublasHandle_t handle);

// y: (m, n) row-major of type y_type (CUDA_R_16BF or CUDA_R_32F); x: (m, k); w: (n, k).
// accumulate: y += x . w^T (y holds a broadcast bias), summed in fp32 and rounded once.
// Runs on the stream bound to `handle`.
void linear(cublasHandle_t handle, void* y, cudaDataType_t y_type, const __nv_bfloat16* x, const __nv_bfloat16* w,
            int m, int n, int k, bool accumulate);

}  // namespace tpb::gpu
