#pragma once
// The exchange underneath the CPU one-shot communicator: one segment per rank
// in an MPI-3 shared window (an epoch flag plus slots for payload), and the
// flag protocol that lets every rank read every peer's slot without an MPI
// call per exchange.
//
// One exchange, epoch e (1, 2, ...; the same sequence on every rank):
//   slot = own_slot(e)     this rank's slot for epoch e
//   ... write the payload into slot ...
//   publish(e)             "my slot holds epoch e"
//   wait_published(e)      every rank's slot holds epoch e (or later)
//   ... read peer_slot(r, e) for every r ...
// Two slots alternate by epoch parity, so that a rank may write epoch e+1
// while a slow peer is still reading epoch e. Writing epoch e+1 reuses the
// slot of epoch e-1, and that is safe without a flag of its own: this rank
// saw every peer publish epoch e, and a peer publishes e only after it has
// read every slot of e-1 (acquire of the flag orders those reads first).
#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tpb {

class SharedExchange {
 public:
  // Collective over `comm`; UsageError (naming `who`) when its ranks span nodes.
  SharedExchange(MPI_Comm comm, std::size_t slot_bytes, const std::string& who);
  ~SharedExchange();
  SharedExchange(const SharedExchange&) = delete;
  SharedExchange& operator=(const SharedExchange&) = delete;

  // Bytes each rank allocates in the window for slots of `slot_bytes`: its
  // flag, two slots, and up to alignof(Segment) - 1 bytes to align them.
  static std::size_t segment_allocation_bytes(std::size_t slot_bytes);

  std::size_t slot_bytes() const { return slot_bytes_; }
  std::uint64_t next_epoch() { return ++epoch_; }

  void* own_slot(std::uint64_t epoch);
  void publish(std::uint64_t epoch);
  void wait_published(std::uint64_t epoch);
  const void* peer_slot(int rank, std::uint64_t epoch) const;

 private:
  // The flag on its own cache line, apart from the slots a peer reads: a rank
  // polling it must not steal the lines the owner is writing.
  struct alignas(64) Segment {
    std::atomic<std::uint64_t> published{0};  // last epoch whose payload is in this rank's slot
  };
  static constexpr std::size_t kHeaderBytes = sizeof(Segment);
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
                "a flag shared between processes must be a lock-free atomic");

  Segment& segment(int rank) const { return *static_cast<Segment*>(bases_[static_cast<std::size_t>(rank)]); }
  char* slot(int rank, std::uint64_t epoch) const {
    return static_cast<char*>(bases_[static_cast<std::size_t>(rank)]) + kHeaderBytes + (epoch % 2) * slot_bytes_;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;  // duplicate: the window's own communicator
  MPI_Win window_ = MPI_WIN_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::size_t slot_bytes_ = 0;
  std::uint64_t epoch_ = 0;
  std::vector<void*> bases_;  // every rank's segment, mapped in this process
};

}  // namespace tpb
