#include "collectives/mpi_group.hpp"

#include "collectives/mpi_check.hpp"

namespace tpb {

ScopedMpiComm ScopedMpiComm::split(MPI_Comm parent, int color, int key) {
  MPI_Comm child = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split(parent, color, key, &child));
  return ScopedMpiComm(child);
}

ScopedMpiComm ScopedMpiComm::duplicate(MPI_Comm parent) {
  MPI_Comm copy = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_dup(parent, &copy));
  ScopedMpiComm owned(copy);
  MPI_CHECK(MPI_Comm_set_errhandler(copy, MPI_ERRORS_RETURN));
  return owned;
}

ScopedMpiComm::~ScopedMpiComm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

MpiGroupCommunicator::MpiGroupCommunicator(MPI_Comm parent) : comm_(ScopedMpiComm::duplicate(parent)) {
  MPI_CHECK(MPI_Comm_rank(comm_.get(), &rank_));
  MPI_CHECK(MPI_Comm_size(comm_.get(), &size_));
}

void MpiGroupCommunicator::barrier() { MPI_CHECK(MPI_Barrier(comm_.get())); }

}  // namespace tpb
