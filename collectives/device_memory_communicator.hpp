#pragma once
// The memory half of a communicator whose buffers live in device memory (the
// NCCL and CUDA one-shot communicators, CUDA builds only): cudaMalloc'd
// buffers, copies ordered on the work stream, and non-blocking work streams,
// so each of them only says how it communicates. Free of CUDA types.
#include <cstddef>

#include "collectives/mpi_group.hpp"

namespace tpb {

class DeviceMemoryCommunicator : public MpiGroupCommunicator {
 public:
  using MpiGroupCommunicator::MpiGroupCommunicator;
  // Non-blocking: the legacy default stream can neither overlap nor be captured.
  StreamHandle create_stream() override;
  void destroy_stream(StreamHandle stream) override;

  MemoryKind memory_kind() const final { return MemoryKind::device; }
  // On the work stream, then waited for with synchronize(): a synchronous
  // cudaMemcpy from pageable memory runs on the legacy stream, which a
  // non-blocking work stream does not wait for, and may return before the
  // copy has landed.
  void copy_from_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override;
  void copy_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override;
  // cudaMalloc (at least one byte, so that every buffer has an address) and cudaFree.
  void* allocate(std::size_t bytes) override;
  void release(void* buffer) override;
};

}  // namespace tpb
