// Device-to-device copy bandwidth (d2d_copy.hpp).
#include "tp_decoder/cuda/d2d_copy.hpp"

#include "common/cuda_check.hpp"

namespace tpb {

std::vector<double> measure_d2d_copy_GBps(const D2dCopyOptions& options) {
  TPB_CHECK(options.bytes > 0 && options.iters > 0 && options.warmup >= 0, "d2d: bytes and iters must be positive");
  void* src = nullptr;
  void* dst = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t end = nullptr;
  CUDA_CHECK(cudaMalloc(&src, options.bytes));
  CUDA_CHECK(cudaMalloc(&dst, options.bytes));
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&end));
  CUDA_CHECK(cudaMemsetAsync(src, 1, options.bytes, stream));  // touch both buffers before timing
  CUDA_CHECK(cudaMemsetAsync(dst, 0, options.bytes, stream));

  std::vector<double> GBps;
  for (int pass = 0; pass < options.warmup + options.iters; ++pass) {
    CUDA_CHECK(cudaEventRecord(start, stream));
    CUDA_CHECK(cudaMemcpyAsync(dst, src, options.bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaEventRecord(end, stream));
    CUDA_CHECK(cudaEventSynchronize(end));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, end));
    if (pass >= options.warmup)
      GBps.push_back(2.0 * static_cast<double>(options.bytes) / (static_cast<double>(ms) * 1e6));
  }

  CUDA_CHECK(cudaEventDestroy(end));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(dst));
  CUDA_CHECK(cudaFree(src));
  return GBps;
}

}  // namespace tpb
