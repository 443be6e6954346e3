#pragma once
// The memory half of a communicator whose buffers live in host memory (the
// MPI and CPU one-shot communicators): 64-byte aligned allocations and plain
// copies, so each of them only says how it communicates.
#include <cstddef>

#include "collectives/communicator.hpp"

namespace tpb {

class HostMemoryCommunicator : public Communicator {
 public:
  void* allocate(std::size_t bytes) override;
  void release(void* buffer) override;
  void copy_from_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override;
  void copy_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override;
};

}  // namespace tpb
