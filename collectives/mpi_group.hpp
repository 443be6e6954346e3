#pragma once
// The MPI side every tpbench communicator shares: a duplicate of its group's
// MPI communicator (so that tpbench's traffic never mixes with the caller's)
// that serves rank, size, barriers and split(), and the short-lived MPI
// communicators made on the way (a split handed to a child's constructor),
// freed on every path.
#include <mpi.h>

#include "collectives/communicator.hpp"
#include "collectives/mpi_communicator.hpp"

namespace tpb {

// An MPI communicator owned by this object and freed with it (unchecked: a
// destructor must not throw, and MPI may be finalizing).
class ScopedMpiComm {
 public:
  // MPI_Comm_split of `parent` (collective over it).
  static ScopedMpiComm split(MPI_Comm parent, int color, int key);
  // MPI_Comm_dup of `parent`, errors returned as codes so that they reach MPI_CHECK.
  static ScopedMpiComm duplicate(MPI_Comm parent);

  ~ScopedMpiComm();
  ScopedMpiComm(ScopedMpiComm&& other) noexcept : comm_(other.comm_) { other.comm_ = MPI_COMM_NULL; }
  ScopedMpiComm(const ScopedMpiComm&) = delete;
  ScopedMpiComm& operator=(const ScopedMpiComm&) = delete;
  ScopedMpiComm& operator=(ScopedMpiComm&&) = delete;

  MPI_Comm get() const { return comm_; }

 private:
  explicit ScopedMpiComm(MPI_Comm comm) : comm_(comm) {}
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// A communicator that keeps a duplicate of its group's MPI communicator; the
// implementations add how they move data (and the memory halves where it lives).
class MpiGroupCommunicator : public Communicator, public MpiBacked {
 public:
  // Collective over `parent`.
  explicit MpiGroupCommunicator(MPI_Comm parent);

  int rank() const final { return rank_; }
  int size() const final { return size_; }
  MPI_Comm mpi_comm() const final { return comm_.get(); }
  void barrier() final;

 protected:
  // The ranks of this group with `color`, ordered by `key`, for a child's
  // constructor, which keeps its own duplicate: in
  // `std::make_unique<Child>(split_group(color, key).get())` the split is
  // freed when the statement ends, also when the constructor throws.
  ScopedMpiComm split_group(int color, int key) const { return ScopedMpiComm::split(comm_.get(), color, key); }

 private:
  ScopedMpiComm comm_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace tpb
