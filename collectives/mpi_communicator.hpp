#pragma once
// MPI implementation of the communicator: host buffers, MPI_Allreduce /
// MPI_Allgather on a duplicated communicator (so tpbench's traffic never
// mixes with the caller's).
#include <mpi.h>

#include <memory>

#include "collectives/communicator.hpp"

namespace tpb {

// Implemented by every communicator that keeps an MPI communicator underneath
// (MPI itself; NCCL for bootstrap, barriers and bookkeeping).
class MpiBacked {
 public:
  virtual MPI_Comm mpi_comm() const = 0;

 protected:
  ~MpiBacked() = default;
};

// Duplicates `comm`; the returned object owns (and frees) the duplicate.
std::unique_ptr<Communicator> make_mpi_communicator(MPI_Comm comm);

// The MPI communicator underneath any tpbench communicator (MPI or NCCL):
// NCCL groups keep one for bootstrap and barriers.
MPI_Comm mpi_comm_of(const Communicator& comm);

}  // namespace tpb
