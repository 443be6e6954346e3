#include "collectives/shared_exchange.hpp"

#include <fmt/format.h>

#include <exception>
#include <memory>
#include <new>

#include "collectives/mpi_check.hpp"
#include "collectives/node_check.hpp"
#include "collectives/spin_wait.hpp"

namespace tpb {

SharedExchange::SharedExchange(MPI_Comm comm, std::size_t slot_bytes, const std::string& who)
    : slot_bytes_(slot_bytes) {
  require_one_node(comm, who);
  MPI_CHECK(MPI_Comm_dup(comm, &comm_));
  MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  MPI_CHECK(MPI_Comm_size(comm_, &size_));

  // Non-contiguous: each rank's segment starts on its own pages, first
  // touched (and so placed in NUMA memory) by its owner.
  MPI_Info info = MPI_INFO_NULL;
  MPI_CHECK(MPI_Info_create(&info));
  MPI_CHECK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
  void* own = nullptr;
  const std::size_t segment_bytes = kHeaderBytes + 2 * slot_bytes_;
  const auto bytes = static_cast<MPI_Aint>(segment_allocation_bytes(slot_bytes_));
  const int status = MPI_Win_allocate_shared(bytes, 1, info, comm_, &own, &window_);
  MPI_Info_free(&info);
  MPI_CHECK(status);

  bases_.resize(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    MPI_Aint peer_bytes = 0;
    int unit = 0;
    void* base = nullptr;
    MPI_CHECK(MPI_Win_shared_query(window_, r, &peer_bytes, &unit, &base));
    std::size_t space = static_cast<std::size_t>(peer_bytes);
    // Every rank asked for the same size, so every rank's segment fits once aligned.
    bases_[static_cast<std::size_t>(r)] = std::align(alignof(Segment), segment_bytes, base, space);
    TPB_CHECK(bases_[static_cast<std::size_t>(r)] != nullptr,
              fmt::format("one-shot: rank {}'s shared segment of {} bytes cannot hold {} bytes aligned to {}", r,
                          peer_bytes, segment_bytes, alignof(Segment)));
  }
  new (bases_[static_cast<std::size_t>(rank_)]) Segment();  // the flag starts at epoch 0 before any peer looks
  // Every segment initialised before anyone polls a peer's flag.
  MPI_CHECK(MPI_Barrier(comm_));
}

std::size_t SharedExchange::segment_allocation_bytes(std::size_t slot_bytes) {
  // MPI_Win_allocate_shared promises no alignment (Open MPI's bases are not
  // 64-byte aligned), while Segment's flag needs a whole cache line:
  // each rank allocates alignof(Segment) - 1 bytes more and every queried
  // base is rounded up to it.
  return kHeaderBytes + 2 * slot_bytes + alignof(Segment) - 1;
}

SharedExchange::~SharedExchange() {
  // Not checked: a destructor must not throw, and MPI may be finalizing.
  // MPI_Win_free is collective: no segment is unmapped while a peer that has
  // not reached it yet may still read it. Unwinding from an error, a peer may
  // be waiting in an exchange this rank will never join: skip it and leave the
  // mapping to the job's end (the backing file is already unlinked).
  if (std::uncaught_exceptions() > 0) return;
  if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void* SharedExchange::own_slot(std::uint64_t epoch) { return slot(rank_, epoch); }

void SharedExchange::publish(std::uint64_t epoch) {
  segment(rank_).published.store(epoch, std::memory_order_release);
}

void SharedExchange::wait_published(std::uint64_t epoch) {
  for (int r = 0; r < size_; ++r) {
    const std::atomic<std::uint64_t>& seen = segment(r).published;
    spin_until([&] { return seen.load(std::memory_order_acquire) >= epoch; },
               [&] { return fmt::format("one-shot: rank {} of {} waits for rank {}: a peer's payload (epoch {})", rank_,
                                        size_, r, epoch); });
  }
}

const void* SharedExchange::peer_slot(int rank, std::uint64_t epoch) const { return slot(rank, epoch); }

}  // namespace tpb
