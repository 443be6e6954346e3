#pragma once
// The exchange underneath the CPU one-shot communicator: one segment per rank
// in an MPI-3 shared window (slots for payload plus two epoch flags), and the
// flag protocol that lets every rank read every peer's slot without an MPI
// call per exchange.
//
// One exchange, epoch e (1, 2, ...; the same sequence on every rank):
//   slot = begin(e)        waits until every rank has read epoch e-2 (which
//                          used the same slot), returns this rank's slot
//   ... write the payload into slot ...
//   publish(e)             "my slot holds epoch e"
//   wait_published(e)      every rank's slot holds epoch e (or later)
//   ... read peer_slot(r, e) for every r ...
//   finish(e)              "I have read everyone's slot of epoch e"
// Two slots alternate by epoch parity, so that a rank may write epoch e+1
// while a slow peer is still reading epoch e.
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
  // flags, two slots, and up to alignof(Segment) - 1 bytes to align them.
  static std::size_t segment_allocation_bytes(std::size_t slot_bytes);

  std::size_t slot_bytes() const { return slot_bytes_; }
  std::uint64_t next_epoch() { return ++epoch_; }

  void* begin(std::uint64_t epoch);
  void publish(std::uint64_t epoch);
  void wait_published(std::uint64_t epoch);
  const void* peer_slot(int rank, std::uint64_t epoch) const;
  void finish(std::uint64_t epoch);

 private:
  // Each flag on its own cache line: a rank polling one flag must not steal
  // the line another rank is writing.
  struct alignas(64) Flag {
    std::atomic<std::uint64_t> epoch{0};
  };
  struct Segment {
    Flag published;  // last epoch whose payload is in this rank's slot
    Flag finished;   // last epoch for which this rank read every slot
  };
  static constexpr std::size_t kHeaderBytes = 2 * sizeof(Flag);
  static_assert(sizeof(Segment) == kHeaderBytes);
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
                "flags shared between processes must be lock-free atomics");

  Segment& segment(int rank) const { return *static_cast<Segment*>(bases_[static_cast<std::size_t>(rank)]); }
  char* slot(int rank, std::uint64_t epoch) const {
    return static_cast<char*>(bases_[static_cast<std::size_t>(rank)]) + kHeaderBytes + (epoch % 2) * slot_bytes_;
  }
  void wait_all(Flag Segment::*flag, std::uint64_t epoch, const char* what);

  MPI_Comm comm_ = MPI_COMM_NULL;  // duplicate: the window's own communicator
  MPI_Win window_ = MPI_WIN_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::size_t slot_bytes_ = 0;
  std::uint64_t epoch_ = 0;
  std::vector<void*> bases_;  // every rank's segment, mapped in this process
};

}  // namespace tpb
