#pragma once
// RMSNorm (Llama): out[r, :] = in[r, :] / sqrt(mean(in[r, :]^2) + eps) * weight[:],
// bf16 in and out, sum of squares and scaling in fp32.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace tpb::gpu {

// in, out: (rows, cols) row-major, out may equal in; weight: (cols).
void rmsnorm(__nv_bfloat16* out, const __nv_bfloat16* in, const __nv_bfloat16* weight, int rows, int cols, float eps,
             cudaStream_t stream);

}  // namespace tpb::gpu
