#pragma once
// Error macros for the CUDA libraries. Included only by sources built when
// CUDA is compiled in (.cu files and the CUDA backend / NCCL communicator).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include "common/error.hpp"

#define CUDA_CHECK(call)                                                                            \
  do {                                                                                              \
    const cudaError_t tpb_status_ = (call);                                                         \
    if (tpb_status_ != cudaSuccess)                                                                 \
      ::tpb::throw_error("CUDA", tpb_status_, cudaGetErrorString(tpb_status_), __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: launch-configuration errors surface here, not later.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(call)                                                                                    \
  do {                                                                                                        \
    const cublasStatus_t tpb_status_ = (call);                                                                \
    if (tpb_status_ != CUBLAS_STATUS_SUCCESS)                                                                 \
      ::tpb::throw_error("cuBLAS", tpb_status_, cublasGetStatusString(tpb_status_), __FILE__, __LINE__);      \
  } while (0)

#define NCCL_CHECK(call)                                                                            \
  do {                                                                                              \
    const ncclResult_t tpb_status_ = (call);                                                        \
    if (tpb_status_ != ncclSuccess)                                                                 \
      ::tpb::throw_error("NCCL", tpb_status_, ncclGetErrorString(tpb_status_), __FILE__, __LINE__); \
  } while (0)
