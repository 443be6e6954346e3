#pragma once
// The memory half of a communicator whose buffers live in host memory (the
// MPI and CPU one-shot communicators): 64-byte aligned allocations and plain
// copies, so each of them only says how it communicates.
#include <cstddef>

#include "collectives/mpi_group.hpp"

namespace tpb {

class HostMemoryCommunicator : public MpiGroupCommunicator {
 public:
  using MpiGroupCommunicator::MpiGroupCommunicator;
  MemoryKind memory_kind() const final { return MemoryKind::host; }
  void* allocate(std::size_t bytes) override;
  void release(void* buffer) override;
  void copy_from_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override;
  void copy_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override;
};

}  // namespace tpb
