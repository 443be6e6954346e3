#pragma once
// One-shot all-reduce inside one node, on device memory: every rank's buffer
// is opened by its peers through CUDA IPC (handles exchanged over MPI), and a
// kernel on each rank reads every peer's slot and sums in rank order, with one
// flag per rank for synchronization (oneshot_cuda_kernels.hpp). Works between
// processes on different GPUs of a node (peer access) and between processes
// sharing one GPU. Not capturable in a CUDA graph: each call carries its epoch.
// The peers' buffers are opened by the first all-reduce or all-gather.
#include <mpi.h>

#include <cstddef>
#include <memory>

#include "collectives/communicator.hpp"
#include "collectives/oneshot_chunks.hpp"

namespace tpb {

// Collective over `comm`; the caller has selected each rank's GPU. UsageError
// when the capacity is not a positive multiple of 64, and from the first
// collective call, on every rank, when the ranks of `comm` span nodes.
std::unique_ptr<Communicator> make_oneshot_cuda_communicator(
    MPI_Comm comm, std::size_t capacity_bytes = kDefaultOneshotCapacityBytes);

}  // namespace tpb
