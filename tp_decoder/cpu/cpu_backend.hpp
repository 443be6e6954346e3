#pragma once
// The CPU backend: fp32 everywhere, the small-batch kernel (small_batch_gemm.hpp)
// for every product, on weights stored in its panel order (upload, download
// and the embedding lookup see them row-major), and OpenMP loops for the other
// operations. Host memory, so it pairs with the MPI communicator. Every
// operation has finished when its call returns.
#include <memory>

#include "tp_decoder/backend.hpp"

namespace tpb {

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace tpb
