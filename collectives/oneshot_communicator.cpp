#include "collectives/oneshot_communicator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "collectives/host_memory_communicator.hpp"
#include "collectives/shared_exchange.hpp"
#include "common/error.hpp"

namespace tpb {
namespace {

// Elements summed per pass over the slots: 16 KiB of floats, so that the
// running sum stays in L1 while each further slot is added to it.
constexpr std::size_t kReduceBlock = 4096;

// out[i] = ((slot0[i] + slot1[i]) + slot2[i]) + ...: the same order on every
// rank, hence the same bits.
void sum_in_rank_order(const SharedExchange& exchange, std::uint64_t epoch, int ranks, std::size_t count,
                       float* __restrict out) {
  for (std::size_t start = 0; start < count; start += kReduceBlock) {
    const std::size_t n = std::min(kReduceBlock, count - start);
    const auto* a = static_cast<const float*>(exchange.peer_slot(0, epoch)) + start;
    float* __restrict dst = out + start;
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

class OneshotCommunicator final : public HostMemoryCommunicator {
 public:
  OneshotCommunicator(MPI_Comm parent, std::size_t capacity_bytes)
      : HostMemoryCommunicator(parent), capacity_bytes_(capacity_bytes) {}

  std::string backend_name() const override { return "oneshot"; }

  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle) override {
    if (type != DataType::f32)
      throw UsageError(fmt::format("--datatype: '{}' is not supported by the one-shot CPU collective (use float)",
                                   to_string(type)));
    SharedExchange& shared = exchange();
    for_each_reduce_chunk(send, recv, count, type, capacity_bytes_, [&](const void* in, void* out, std::size_t n) {
      const std::uint64_t epoch = shared.next_epoch();
      // Copied before anything is written to recv: in place is safe.
      std::memcpy(shared.own_slot(epoch), in, n * sizeof(float));
      shared.publish(epoch);
      shared.wait_published(epoch);
      sum_in_rank_order(shared, epoch, size(), n, static_cast<float*>(out));
    });
  }

  void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type, StreamHandle) override {
    SharedExchange& shared = exchange();
    for_each_gather_chunk(
        send, recv, count_per_rank, type, capacity_bytes_,
        [&](const void* in, void* out, std::size_t bytes, std::size_t stride_bytes) {
          const std::uint64_t epoch = shared.next_epoch();
          std::memcpy(shared.own_slot(epoch), in, bytes);
          shared.publish(epoch);
          shared.wait_published(epoch);
          for (int r = 0; r < size(); ++r) {
            char* dst = static_cast<char*>(out) + static_cast<std::size_t>(r) * stride_bytes;
            // In place (send is this rank's part of recv), the own part is already there.
            if (r == rank() && dst == in) continue;
            std::memcpy(dst, shared.peer_slot(r, epoch), bytes);
          }
        });
  }

  void synchronize(StreamHandle) override {}

  std::unique_ptr<Communicator> split(int color, int key) override {
    return std::make_unique<OneshotCommunicator>(split_group(color, key).get(), capacity_bytes_);
  }

 private:
  // Created by the first collective call (collective, like the call): a
  // communicator only split into groups, as the world of a TP sweep is, never
  // maps a shared buffer and may span nodes.
  SharedExchange& exchange() {
    if (!exchange_) exchange_ = std::make_unique<SharedExchange>(mpi_comm(), capacity_bytes_, "--collective oneshot");
    return *exchange_;
  }

  std::size_t capacity_bytes_;
  std::unique_ptr<SharedExchange> exchange_;  // frees its window (collective) before the group's MPI communicator goes
};

}  // namespace

std::unique_ptr<Communicator> make_oneshot_communicator(MPI_Comm comm, std::size_t capacity_bytes) {
  require_oneshot_capacity(capacity_bytes);
  return std::make_unique<OneshotCommunicator>(comm, capacity_bytes);
}

}  // namespace tpb
