// Device-to-device copy bandwidth (d2d_copy.hpp).
#include "tp_decoder/cuda/d2d_copy.hpp"

#include "common/cuda_check.hpp"
#include "tp_decoder/cuda/probe_timing.cuh"

namespace tpb {

std::vector<double> measure_d2d_copy_GBps(const D2dCopyOptions& options) {
  TPB_CHECK(options.bytes > 0 && options.iters > 0 && options.warmup >= 0, "d2d: bytes and iters must be positive");
  gpu::ProbeBuffers buffers;  // freed after the timer's stream is done with them
  gpu::PassTimer timer;
  unsigned char* src = buffers.allocate<unsigned char>(options.bytes);
  unsigned char* dst = buffers.allocate<unsigned char>(options.bytes);
  CUDA_CHECK(cudaMemsetAsync(src, 1, options.bytes, timer.stream()));  // touch both buffers before timing
  CUDA_CHECK(cudaMemsetAsync(dst, 0, options.bytes, timer.stream()));
  return timer.rates(
      options.warmup, options.iters,
      [&] { CUDA_CHECK(cudaMemcpyAsync(dst, src, options.bytes, cudaMemcpyDeviceToDevice, timer.stream())); },
      [&](double ms) { return 2.0 * static_cast<double>(options.bytes) / (ms * 1e6); });
}

}  // namespace tpb
