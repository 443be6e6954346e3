#pragma once
// What the device probes (d2d_copy.hpp, gemm_rate.hpp) share: their buffers,
// freed on every way out, and a stream with two events that time one pass of
// work at a time. A failed allocation or call throws; what was created is
// released.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "common/cuda_check.hpp"

namespace tpb::gpu {

class ProbeBuffers {
 public:
  ProbeBuffers() = default;
  ProbeBuffers(const ProbeBuffers&) = delete;
  ProbeBuffers& operator=(const ProbeBuffers&) = delete;
  ~ProbeBuffers() {
    for (void* buffer : buffers_) cudaFree(buffer);  // not checked: a destructor must not throw
  }

  template <typename T>
  T* allocate(std::size_t count) {
    void* buffer = nullptr;
    CUDA_CHECK(cudaMalloc(&buffer, count * sizeof(T)));
    buffers_.push_back(buffer);
    return static_cast<T*>(buffer);
  }

 private:
  std::vector<void*> buffers_;
};

class PassTimer {
 public:
  // Delegates to the empty constructor first: once it has run, the destructor
  // frees what was created if a later creation throws.
  PassTimer() : PassTimer(Empty{}) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&end_));
  }
  PassTimer(const PassTimer&) = delete;
  PassTimer& operator=(const PassTimer&) = delete;
  ~PassTimer() {
    // Not checked: a destructor must not throw, and it also runs after a failure.
    if (stream_ != nullptr) cudaStreamSynchronize(stream_);
    if (end_ != nullptr) cudaEventDestroy(end_);
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  cudaStream_t stream() const { return stream_; }

  // `warmup` untimed passes, then `iters` timed ones: issue() puts one pass's
  // work on stream() between the events; each timed pass gives rate(ms).
  template <typename Issue, typename Rate>
  std::vector<double> rates(int warmup, int iters, Issue issue, Rate rate) {
    std::vector<double> out;
    for (int pass = 0; pass < warmup + iters; ++pass) {
      CUDA_CHECK(cudaEventRecord(start_, stream_));
      issue();
      CUDA_CHECK(cudaEventRecord(end_, stream_));
      CUDA_CHECK(cudaEventSynchronize(end_));
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start_, end_));
      if (pass >= warmup) out.push_back(rate(static_cast<double>(ms)));
    }
    return out;
  }

 private:
  struct Empty {};
  explicit PassTimer(Empty) {}

  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t end_ = nullptr;
};

}  // namespace tpb::gpu
