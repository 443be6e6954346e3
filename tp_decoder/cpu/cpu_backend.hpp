#pragma once
// The CPU backend: fp32 everywhere, OpenBLAS (OpenMP build) for GEMM/GEMV and
// OpenMP loops for the other operations. Host memory, so it pairs with the
// MPI communicator. Every operation has finished when its call returns.
#include <memory>

#include "tp_decoder/backend.hpp"

namespace tpb {

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace tpb
