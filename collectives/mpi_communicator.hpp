#pragma once
// MPI implementation of the communicator: host buffers, MPI_Allreduce /
// MPI_Allgather on a duplicated communicator (so tpbench's traffic never
// mixes with the caller's).
#include <mpi.h>

#include <memory>

#include "collectives/communicator.hpp"

namespace tpb {

// Duplicates `comm`; the returned object owns (and frees) the duplicate.
std::unique_ptr<Communicator> make_mpi_communicator(MPI_Comm comm);

// The MPI communicator underneath any tpbench communicator (MPI or NCCL):
// NCCL groups keep one for bootstrap and barriers.
MPI_Comm mpi_comm_of(const Communicator& comm);

}  // namespace tpb
