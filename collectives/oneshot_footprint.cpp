#include "collectives/oneshot_footprint.hpp"

#include "collectives/oneshot_cuda_kernels.hpp"
#include "collectives/shared_exchange.hpp"

namespace tpb {

std::size_t oneshot_host_bytes_per_rank(std::size_t capacity_bytes) {
  return SharedExchange::segment_allocation_bytes(capacity_bytes);
}

std::size_t oneshot_device_bytes_per_rank(int ranks, std::size_t capacity_bytes) {
  return oneshot_cuda_buffer_bytes(capacity_bytes) + oneshot_cuda_peer_table_bytes(ranks);
}

std::size_t oneshot_bytes_per_rank(MemoryKind memory, int ranks, std::size_t capacity_bytes) {
  return memory == MemoryKind::host ? oneshot_host_bytes_per_rank(capacity_bytes)
                                    : oneshot_device_bytes_per_rank(ranks, capacity_bytes);
}

}  // namespace tpb
