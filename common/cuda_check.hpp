#pragma once
// Error macros for the CUDA libraries. Included only by sources built when
// CUDA is compiled in (.cu files and the CUDA backend / NCCL communicator).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include "common/error.hpp"

// One check for every CUDA library: `ok` is the library's success status and
// `describe` turns a status into its own message.
#define TPB_LIBRARY_CHECK(library, call, ok, describe)                                     \
  do {                                                                                     \
    const auto tpb_status_ = (call);                                                       \
    if (tpb_status_ != (ok))                                                               \
      ::tpb::throw_error(library, tpb_status_, describe(tpb_status_), __FILE__, __LINE__); \
  } while (0)

#define CUDA_CHECK(call) TPB_LIBRARY_CHECK("CUDA", call, cudaSuccess, cudaGetErrorString)

// After a kernel launch: launch-configuration errors surface here, not later.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(call) TPB_LIBRARY_CHECK("cuBLAS", call, CUBLAS_STATUS_SUCCESS, cublasGetStatusString)

#define NCCL_CHECK(call) TPB_LIBRARY_CHECK("NCCL", call, ncclSuccess, ncclGetErrorString)
