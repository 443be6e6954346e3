#pragma once
// A tensor-parallel group of one rank: k = 1 has no collective, so it opens no
// communicator (no MPI duplicate, no NCCL communicator) and issues none. The
// sum over a group of one is the rank's own data, the gather its own shard:
// in place they do nothing, out of place they copy. Memory, streams and graph
// capture are those of the communicator the group was split from, whose
// MPI side the group never touches: its MPI communicator is MPI_COMM_SELF.
#include <memory>

#include "collectives/communicator.hpp"

namespace tpb {

// The group of one split from `parent` (split_into_tp_groups(parent, 1)).
// Valid while `parent` lives: its memory operations serve the group's buffers.
std::unique_ptr<Communicator> make_solo_group(Communicator& parent);

}  // namespace tpb
