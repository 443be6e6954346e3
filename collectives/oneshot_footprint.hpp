#pragma once
// What one group of a one-shot communicator allocates on each of its ranks,
// once its first collective call has mapped the shared buffers. The
// communicators size their allocations with these same functions, so that the
// memory estimate (tp_decoder/memory_estimate.hpp) counts exactly what they hold.
#include <cstddef>

#include "collectives/communicator.hpp"
#include "collectives/oneshot_chunks.hpp"

namespace tpb {

// Host memory: this rank's segment of the group's MPI-3 shared window (an
// epoch flag, two slots of `capacity_bytes`, and the slack that aligns the
// flag to a cache line). The window is the sum of the ranks' segments; each
// rank allocates its own (oneshot_communicator.hpp, shared_exchange.hpp).
std::size_t oneshot_host_bytes_per_rank(std::size_t capacity_bytes = kDefaultOneshotCapacityBytes);

// Device memory: this rank's IPC buffer (control block, two slots of
// `capacity_bytes`) and the table of the `ranks` buffer pointers its kernels
// read (oneshot_cuda_communicator.hpp). The peers' buffers it opens are theirs.
std::size_t oneshot_device_bytes_per_rank(int ranks, std::size_t capacity_bytes = kDefaultOneshotCapacityBytes);

// The one of the two that matches `memory`.
std::size_t oneshot_bytes_per_rank(MemoryKind memory, int ranks,
                                   std::size_t capacity_bytes = kDefaultOneshotCapacityBytes);

}  // namespace tpb
