#pragma once
// Device-to-device copy bandwidth of the current device: the memory bound a
// batch-1 decode step (one pass over the weights) is compared against, the GPU
// counterpart of the CPU's STREAM-like read. Host-only header: callers need no
// CUDA headers.
#include <cstddef>
#include <vector>

namespace tpb {

struct D2dCopyOptions {
  std::size_t bytes = std::size_t{1} << 30;  // per copy: far above the L2 cache
  int warmup = 3;
  int iters = 20;
};

// One figure per timed copy (cudaMemcpyAsync device to device, CUDA events
// around each): 2 x bytes / time in GB/s (1e9 B), counting bytes read plus
// bytes written as CUDA's bandwidthTest does.
std::vector<double> measure_d2d_copy_GBps(const D2dCopyOptions& options);

}  // namespace tpb
