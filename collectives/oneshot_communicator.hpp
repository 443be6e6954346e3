#pragma once
// One-shot all-reduce inside one node, on host memory: the ranks of a group
// share one buffer (an MPI-3 shared window), each rank writes its payload into
// its own slot, one epoch flag per rank says "my slot holds call e", and every
// rank then sums all slots itself, in rank order, so that every rank gets the
// same bits. A second flag per rank ("I have read everyone's slot of call e")
// guards a slot before it is written again. No MPI call on the path of a call.
#include <mpi.h>

#include <cstddef>
#include <memory>

#include "collectives/communicator.hpp"
#include "collectives/oneshot_chunks.hpp"

namespace tpb {

// Collective over `comm`. UsageError when the capacity is not a positive
// multiple of 64 bytes. The shared buffer is mapped by the first all-reduce or
// all-gather, which throws UsageError on every rank when the ranks of `comm`
// are not all on one node; split() needs no shared buffer.
std::unique_ptr<Communicator> make_oneshot_communicator(MPI_Comm comm,
                                                        std::size_t capacity_bytes = kDefaultOneshotCapacityBytes);

}  // namespace tpb
