// Device-to-device copy bandwidth (d2d_copy.hpp).
#include "tp_decoder/cuda/d2d_copy.hpp"

#include "common/cuda_check.hpp"

namespace tpb {
namespace {

// The copy's buffers, stream and events, freed on every way out (a failed
// allocation or copy throws): what was created is released, the rest is null.
struct D2dResources {
  void* src = nullptr;
  void* dst = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t end = nullptr;

  D2dResources() = default;
  D2dResources(const D2dResources&) = delete;
  D2dResources& operator=(const D2dResources&) = delete;
  ~D2dResources() {
    // Not checked: a destructor must not throw, and it also runs after a failure.
    if (stream != nullptr) cudaStreamSynchronize(stream);
    if (end != nullptr) cudaEventDestroy(end);
    if (start != nullptr) cudaEventDestroy(start);
    if (stream != nullptr) cudaStreamDestroy(stream);
    cudaFree(dst);
    cudaFree(src);
  }
};

}  // namespace

std::vector<double> measure_d2d_copy_GBps(const D2dCopyOptions& options) {
  TPB_CHECK(options.bytes > 0 && options.iters > 0 && options.warmup >= 0, "d2d: bytes and iters must be positive");
  D2dResources r;
  CUDA_CHECK(cudaMalloc(&r.src, options.bytes));
  CUDA_CHECK(cudaMalloc(&r.dst, options.bytes));
  CUDA_CHECK(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&r.start));
  CUDA_CHECK(cudaEventCreate(&r.end));
  CUDA_CHECK(cudaMemsetAsync(r.src, 1, options.bytes, r.stream));  // touch both buffers before timing
  CUDA_CHECK(cudaMemsetAsync(r.dst, 0, options.bytes, r.stream));

  std::vector<double> GBps;
  for (int pass = 0; pass < options.warmup + options.iters; ++pass) {
    CUDA_CHECK(cudaEventRecord(r.start, r.stream));
    CUDA_CHECK(cudaMemcpyAsync(r.dst, r.src, options.bytes, cudaMemcpyDeviceToDevice, r.stream));
    CUDA_CHECK(cudaEventRecord(r.end, r.stream));
    CUDA_CHECK(cudaEventSynchronize(r.end));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, r.start, r.end));
    if (pass >= options.warmup)
      GBps.push_back(2.0 * static_cast<double>(options.bytes) / (static_cast<double>(ms) * 1e6));
  }
  return GBps;
}

}  // namespace tpb
