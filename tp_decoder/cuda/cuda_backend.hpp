#pragma once
// The CUDA backend: bf16 storage with fp32 accumulation, cuBLAS GEMMs, the
// kernels of this folder, one non-blocking stream, and the whole step
// capturable as a CUDA graph (collectives on stream() included).
#include <cstddef>
#include <memory>

#include "tp_decoder/backend.hpp"

namespace tpb {

// cuBLAS's recommended workspace on Hopper; set explicitly so that cuBLAS
// never allocates while a graph is being captured. The memory estimate counts
// it (tp_decoder/memory_estimate.cpp).
inline constexpr std::size_t kCublasWorkspaceBytes = 32u << 20;

// A backend on the current CUDA device (the rank bootstrap binds one device per
// rank). Throws tpb::Error when no device is visible.
std::unique_ptr<Backend> make_cuda_backend();

}  // namespace tpb
