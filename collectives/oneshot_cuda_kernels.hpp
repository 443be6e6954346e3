#pragma once
// Kernels of the CUDA one-shot communicator (oneshot_cuda_communicator.cpp),
// behind plain C++ declarations so that the host code needs no nvcc.
//
// Every rank owns one device buffer, opened by its peers through CUDA IPC:
//   OneshotCudaControl            flags and block counters (this header's struct)
//   slot 0, slot 1                capacity bytes each; epoch e uses slot e % 2
// One exchange of epoch e is two kernels on the caller's stream:
//   publish: waits until every peer has read epoch e-2 (the same slot), copies
//            this rank's chunk into its slot, and the last block to finish
//            sets `published` = e;
//   combine: waits until every peer has published e, sums (or gathers) every
//            rank's slot in rank order, and the last block sets `finished` = e.
// Two kernels, not one: a block waiting for a peer must never wait for a
// block of its own grid that may not be resident.
#include <cstddef>
#include <cstdint>

#include "collectives/communicator.hpp"

namespace tpb {

struct OneshotCudaControl {
  // Flags on separate 128-byte lines: peers poll them across the bus.
  alignas(128) std::uint64_t published;  // last epoch whose chunk is in this rank's slot
  alignas(128) std::uint64_t finished;   // last epoch for which this rank read every slot
  alignas(128) unsigned int publish_blocks;  // blocks of the running publish kernel done so far
  alignas(128) unsigned int combine_blocks;  // blocks of the running combine kernel done so far
};

// Device array of every rank's buffer base (this rank's own included), rank order.
struct OneshotCudaPeers {
  char* const* bases;  // device pointer to `ranks` device pointers
  int ranks;
  int rank;
  std::size_t capacity_bytes;  // per slot
};

// Bytes before slot 0 in every rank's buffer.
inline constexpr std::size_t kOneshotCudaHeaderBytes = 512;
static_assert(sizeof(OneshotCudaControl) <= kOneshotCudaHeaderBytes);
// Every rank's buffer: the control block, then slot 0 and slot 1.
constexpr std::size_t oneshot_cuda_buffer_bytes(std::size_t capacity_bytes) {
  return kOneshotCudaHeaderBytes + 2 * capacity_bytes;
}
// The device array of the `ranks` buffer bases (OneshotCudaPeers::bases).
constexpr std::size_t oneshot_cuda_peer_table_bytes(int ranks) {
  return static_cast<std::size_t>(ranks) * sizeof(char*);
}

// `bytes` from `chunk` into this rank's slot of `epoch`, then publish.
void launch_oneshot_publish(const OneshotCudaPeers& peers, std::uint64_t epoch, const void* chunk, std::size_t bytes,
                            StreamHandle stream);
// out[i] = sum over ranks, in rank order, of slot[i] (count elements of `type`).
void launch_oneshot_reduce(const OneshotCudaPeers& peers, std::uint64_t epoch, void* out, std::size_t count,
                           DataType type, StreamHandle stream);
// Copies `bytes` of every rank's slot to out + r * stride_bytes, rank order.
void launch_oneshot_gather(const OneshotCudaPeers& peers, std::uint64_t epoch, void* out, std::size_t bytes,
                           std::size_t stride_bytes, StreamHandle stream);

}  // namespace tpb
