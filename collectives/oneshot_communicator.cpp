#include "collectives/oneshot_communicator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "collectives/host_memory_communicator.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/mpi_communicator.hpp"
#include "collectives/shared_exchange.hpp"

namespace tpb {
namespace {

// Elements summed per pass over the slots: 16 KiB of floats, so that the
// running sum stays in L1 while each further slot is added to it.
constexpr std::size_t kReduceBlock = 4096;

// out[i] = ((slot0[i] + slot1[i]) + slot2[i]) + ...: the same order on every
// rank, hence the same bits.
void sum_in_rank_order(const SharedExchange& exchange, std::uint64_t epoch, int ranks, std::size_t offset,
                       std::size_t count, float* __restrict out) {
  for (std::size_t start = 0; start < count; start += kReduceBlock) {
    const std::size_t n = std::min(kReduceBlock, count - start);
    const auto* a = static_cast<const float*>(exchange.peer_slot(0, epoch)) + start;
    float* __restrict dst = out + offset + start;
    if (ranks == 1) {
      std::memcpy(dst, a, n * sizeof(float));
      continue;
    }
    const auto* b = static_cast<const float*>(exchange.peer_slot(1, epoch)) + start;
    for (std::size_t i = 0; i < n; ++i) dst[i] = a[i] + b[i];
    for (int r = 2; r < ranks; ++r) {
      const auto* c = static_cast<const float*>(exchange.peer_slot(r, epoch)) + start;
      for (std::size_t i = 0; i < n; ++i) dst[i] += c[i];
    }
  }
}

class OneshotCommunicator final : public HostMemoryCommunicator, public MpiBacked {
 public:
  OneshotCommunicator(MPI_Comm parent, std::size_t capacity_bytes) : capacity_bytes_(capacity_bytes) {
    MPI_CHECK(MPI_Comm_dup(parent, &comm_));
    MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    MPI_CHECK(MPI_Comm_size(comm_, &size_));
  }
  ~OneshotCommunicator() override {
    exchange_.reset();  // frees its window (collective) before the communicator goes
    // Not checked: a destructor must not throw, and MPI may be finalizing.
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  OneshotCommunicator(const OneshotCommunicator&) = delete;
  OneshotCommunicator& operator=(const OneshotCommunicator&) = delete;

  std::string backend_name() const override { return "oneshot"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MemoryKind memory_kind() const override { return MemoryKind::host; }
  MPI_Comm mpi_comm() const override { return comm_; }

  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle) override {
    if (type != DataType::f32)
      throw UsageError(fmt::format("--datatype: '{}' is not supported by the one-shot CPU collective (use float)",
                                   to_string(type)));
    const std::size_t chunk = capacity_bytes_ / sizeof(float);
    SharedExchange& shared = exchange();
    for (std::size_t offset = 0; offset < count; offset += chunk) {
      const std::size_t n = std::min(chunk, count - offset);
      const std::uint64_t epoch = shared.next_epoch();
      // Copied before anything is written to recv: in place is safe.
      std::memcpy(shared.begin(epoch), static_cast<const float*>(send) + offset, n * sizeof(float));
      shared.publish(epoch);
      shared.wait_published(epoch);
      sum_in_rank_order(shared, epoch, size_, offset, n, static_cast<float*>(recv));
      shared.finish(epoch);
    }
  }

  void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type, StreamHandle) override {
    const std::size_t element_bytes = element_size(type);
    const std::size_t rank_bytes = count_per_rank * element_bytes;
    const std::size_t chunk_bytes = capacity_bytes_ / element_bytes * element_bytes;
    auto* out = static_cast<char*>(recv);
    const auto* mine = static_cast<const char*>(send);
    SharedExchange& shared = exchange();
    for (std::size_t offset = 0; offset < rank_bytes; offset += chunk_bytes) {
      const std::size_t n = std::min(chunk_bytes, rank_bytes - offset);
      const std::uint64_t epoch = shared.next_epoch();
      std::memcpy(shared.begin(epoch), mine + offset, n);
      shared.publish(epoch);
      shared.wait_published(epoch);
      for (int r = 0; r < size_; ++r) {
        char* dst = out + static_cast<std::size_t>(r) * rank_bytes + offset;
        // In place (send is this rank's part of recv), the own part is already there.
        if (r == rank_ && dst == mine + offset) continue;
        std::memcpy(dst, shared.peer_slot(r, epoch), n);
      }
      shared.finish(epoch);
    }
  }

  void barrier() override { MPI_CHECK(MPI_Barrier(comm_)); }
  void synchronize(StreamHandle) override {}

  std::unique_ptr<Communicator> split(int color, int key) override {
    MPI_Comm child = MPI_COMM_NULL;
    MPI_CHECK(MPI_Comm_split(comm_, color, key, &child));
    std::unique_ptr<Communicator> result;
    try {
      result = std::make_unique<OneshotCommunicator>(child, capacity_bytes_);
    } catch (...) {
      MPI_Comm_free(&child);
      throw;
    }
    MPI_CHECK(MPI_Comm_free(&child));
    return result;
  }


 private:
  // Created by the first collective call (collective, like the call): a
  // communicator only split into groups, as the world of a TP sweep is, never
  // maps a shared buffer and may span nodes.
  SharedExchange& exchange() {
    if (!exchange_) exchange_ = std::make_unique<SharedExchange>(comm_, capacity_bytes_, "--collective oneshot");
    return *exchange_;
  }

  std::unique_ptr<SharedExchange> exchange_;
  std::size_t capacity_bytes_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::unique_ptr<Communicator> make_oneshot_communicator(MPI_Comm comm, std::size_t capacity_bytes) {
  if (capacity_bytes == 0 || capacity_bytes % 64 != 0)
    throw UsageError(fmt::format("one-shot capacity: {} bytes is not a positive multiple of 64", capacity_bytes));
  return std::make_unique<OneshotCommunicator>(comm, capacity_bytes);
}

}  // namespace tpb
