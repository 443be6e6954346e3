// Kernels of the CUDA one-shot communicator; the protocol is described in
// oneshot_cuda_kernels.hpp.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstddef>
#include <cuda/atomic>

#include "collectives/oneshot_cuda_kernels.hpp"
#include "common/cuda_check.hpp"

namespace tpb {
namespace {

constexpr int kThreads = 256;
// Enough blocks to keep the copy engines of a few SMs busy at decode sizes;
// few enough that two processes sharing one GPU are never starved of SMs.
constexpr int kMaxBlocks = 32;

using SystemFlag = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>;

__device__ OneshotCudaControl* control_of(char* base) { return reinterpret_cast<OneshotCudaControl*>(base); }

__device__ char* slot_of(char* base, std::size_t capacity_bytes, std::uint64_t epoch) {
  return base + kOneshotCudaHeaderBytes + (epoch % 2) * capacity_bytes;
}

// Called by one thread per block: spins until every rank's flag reaches `epoch`.
__device__ void wait_for_all(char* const* bases, int ranks, bool published, std::uint64_t epoch) {
  for (int r = 0; r < ranks; ++r) {
    OneshotCudaControl* control = control_of(bases[r]);
    SystemFlag flag(published ? control->published : control->finished);
    while (flag.load(cuda::memory_order_acquire) < epoch) __nanosleep(100);
  }
}

// Called by every thread after its block's share of the work: the last block
// of the grid to get here sets this rank's flag to `epoch`.
__device__ void last_block_sets(OneshotCudaControl* control, unsigned int* counter, bool published,
                                std::uint64_t epoch) {
  __syncthreads();
  if (threadIdx.x != 0) return;
  __threadfence_system();  // this block's writes, visible to peers before the count
  if (atomicAdd(counter, 1u) != gridDim.x - 1) return;
  *counter = 0;  // for the next launch, which the stream orders after this one
  SystemFlag(published ? control->published : control->finished).store(epoch, cuda::memory_order_release);
}

// Grid-stride copy in the widest unit all three of dst, src and bytes allow.
template <typename Unit>
__device__ void copy_units(char* dst, const char* src, std::size_t bytes) {
  const std::size_t units = bytes / sizeof(Unit);
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < units; i += gridDim.x * blockDim.x)
    reinterpret_cast<Unit*>(dst)[i] = __ldcg(reinterpret_cast<const Unit*>(src) + i);
}

__device__ void copy_bytes(char* dst, const char* src, std::size_t bytes) {
  const auto alignment = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) | bytes;
  if (alignment % 16 == 0)
    copy_units<uint4>(dst, src, bytes);
  else if (alignment % 4 == 0)
    copy_units<unsigned int>(dst, src, bytes);
  else
    copy_units<unsigned char>(dst, src, bytes);
}

__global__ void publish_kernel(OneshotCudaPeers peers, std::uint64_t epoch, const char* chunk, std::size_t bytes) {
  char* own = peers.bases[peers.rank];
  // The slot of epoch e was last read by the peers in epoch e-2.
  if (threadIdx.x == 0 && epoch > 2) wait_for_all(peers.bases, peers.ranks, false, epoch - 2);
  __syncthreads();
  copy_bytes(slot_of(own, peers.capacity_bytes, epoch), chunk, bytes);
  last_block_sets(control_of(own), &control_of(own)->publish_blocks, true, epoch);
}

__device__ float to_float(float v) { return v; }
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ float to_float(__half v) { return __half2float(v); }
template <typename T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) { return v; }
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <>
__device__ __half from_float<__half>(float v) { return __float2half(v); }

// ((slot0 + slot1) + slot2) + ... in float, rounded once: the same order,
// hence the same bits, on every rank. Slot loads bypass L1 (__ldcg): a peer
// rewrote them since this SM last looked.
template <typename T>
__global__ void reduce_kernel(OneshotCudaPeers peers, std::uint64_t epoch, T* out, std::size_t count) {
  if (threadIdx.x == 0) wait_for_all(peers.bases, peers.ranks, true, epoch);
  __syncthreads();
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    float sum = to_float(__ldcg(reinterpret_cast<const T*>(slot_of(peers.bases[0], peers.capacity_bytes, epoch)) + i));
    for (int r = 1; r < peers.ranks; ++r)
      sum += to_float(__ldcg(reinterpret_cast<const T*>(slot_of(peers.bases[r], peers.capacity_bytes, epoch)) + i));
    out[i] = from_float<T>(sum);
  }
  char* own = peers.bases[peers.rank];
  last_block_sets(control_of(own), &control_of(own)->combine_blocks, false, epoch);
}

__global__ void gather_kernel(OneshotCudaPeers peers, std::uint64_t epoch, char* out, std::size_t bytes,
                              std::size_t stride_bytes) {
  if (threadIdx.x == 0) wait_for_all(peers.bases, peers.ranks, true, epoch);
  __syncthreads();
  for (int r = 0; r < peers.ranks; ++r)
    copy_bytes(out + static_cast<std::size_t>(r) * stride_bytes, slot_of(peers.bases[r], peers.capacity_bytes, epoch),
               bytes);
  char* own = peers.bases[peers.rank];
  last_block_sets(control_of(own), &control_of(own)->combine_blocks, false, epoch);
}

int blocks_for(std::size_t units) {
  return static_cast<int>(std::clamp<std::size_t>((units + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

cudaStream_t cuda_stream(StreamHandle stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace

void launch_oneshot_publish(const OneshotCudaPeers& peers, std::uint64_t epoch, const void* chunk, std::size_t bytes,
                            StreamHandle stream) {
  publish_kernel<<<blocks_for(bytes / 16), kThreads, 0, cuda_stream(stream)>>>(peers, epoch,
                                                                              static_cast<const char*>(chunk), bytes);
  CUDA_CHECK_LAUNCH();
}

void launch_oneshot_reduce(const OneshotCudaPeers& peers, std::uint64_t epoch, void* out, std::size_t count,
                           DataType type, StreamHandle stream) {
  const int blocks = blocks_for(count);
  switch (type) {
    case DataType::f32:
      reduce_kernel<<<blocks, kThreads, 0, cuda_stream(stream)>>>(peers, epoch, static_cast<float*>(out), count);
      break;
    case DataType::bf16:
      reduce_kernel<<<blocks, kThreads, 0, cuda_stream(stream)>>>(peers, epoch, static_cast<__nv_bfloat16*>(out),
                                                                  count);
      break;
    case DataType::f16:
      reduce_kernel<<<blocks, kThreads, 0, cuda_stream(stream)>>>(peers, epoch, static_cast<__half*>(out), count);
      break;
  }
  CUDA_CHECK_LAUNCH();
}

void launch_oneshot_gather(const OneshotCudaPeers& peers, std::uint64_t epoch, void* out, std::size_t bytes,
                           std::size_t stride_bytes, StreamHandle stream) {
  gather_kernel<<<blocks_for(bytes / 16), kThreads, 0, cuda_stream(stream)>>>(peers, epoch, static_cast<char*>(out),
                                                                             bytes, stride_bytes);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tpb
