#pragma once
// NCCL implementation of the communicator (CUDA builds only, TPB_HAVE_CUDA):
// device buffers, ncclAllReduce / ncclAllGather on the caller's stream. The
// NCCL communicator is bootstrapped by broadcasting an ncclUniqueId over a
// duplicate of the group's MPI communicator, which also serves barriers,
// split() and mpi_comm_of(). Each rank must have selected its device
// (bootstrap_ranks with a GPU) before creating one.
#include <mpi.h>

#include <memory>

#include "collectives/communicator.hpp"

namespace tpb {

// Collective over `comm`.
std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm comm);

}  // namespace tpb
