#pragma once
// Elementwise ops of the decode step: residual add, bias broadcast (qwen2's
// q/k/v bias, accumulated into by the GEMM) and the SwiGLU gate SiLU(gate) * up.
// bf16 storage, fp32 arithmetic.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace tpb::gpu {

// x[i] += y[i] for i < n (the residual stream: x is the hidden state, y a block's output).
void add_inplace(__nv_bfloat16* x, const __nv_bfloat16* y, std::size_t n, cudaStream_t stream);

// out[r, c] = bias[c] for r < rows, c < cols (out: (rows, cols) row-major). A GEMM
// with beta = 1 then adds its product in fp32, so the biased result is rounded once.
void broadcast_rows(__nv_bfloat16* out, const __nv_bfloat16* bias, int rows, int cols, cudaStream_t stream);

// out[r, c] = silu(gate[r, c]) * up[r, c], silu(g) = g / (1 + exp(-g)).
// gate and up rows are in_stride elements apart (both halves of one fused
// gate|up GEMM output share a stride); out rows are cols elements apart.
void silu_mul(__nv_bfloat16* out, const __nv_bfloat16* gate, const __nv_bfloat16* up, int rows, int cols, int in_stride,
              cudaStream_t stream);

}  // namespace tpb::gpu
