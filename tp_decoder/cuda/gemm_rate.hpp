#pragma once
// The rate of the step's GEMM on the current device: the compute ceiling
// `roofline` prices a phase's flops at on the cuda backend, as the FMA peak is
// on the cpu one. Host-only header: callers need no CUDA headers.
#include <vector>

namespace tpb {

// A large square GEMM, not one of the step's own shapes: a decode step's GEMMs
// have m = batch rows and read each weight once, so they are bound by memory
// and would time the bandwidth again; 4096³ (about 1365 flop per byte moved,
// far above any GPU's ridge point) is bound by compute, and at bf16 tensor-core
// rates takes a fraction of a millisecond in 96 MiB of buffers.
struct GemmRateOptions {
  int m = 4096;
  int n = 4096;
  int k = 4096;
  int warmup = 3;
  int iters = 10;
};

// What the GEMM multiplies and accumulates in: the decode step's linear layers'.
inline constexpr const char* kGemmRateTypes = "bf16 x, w and y, fp32 accumulation";

// One figure per timed GEMM (gpu::linear: y = x · wᵀ, bf16 x, w and y, fp32
// accumulation, cuBLAS with the step's numerics; CUDA events around each):
// 2 m n k / time in GFLOP/s (1e9 flop/s).
std::vector<double> measure_gemm_GFLOPs(const GemmRateOptions& options);

}  // namespace tpb
