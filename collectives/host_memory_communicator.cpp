#include "collectives/host_memory_communicator.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

#include "common/error.hpp"

namespace tpb {

void* HostMemoryCommunicator::allocate(std::size_t bytes) {
  // 64-byte alignment: full cache lines, widest SIMD loads, and any two buffers
  // a multiple of 64 B apart, never where a 4 KiB copy between them slows down
  // (docs/SWEEP.md, buffer placement).
  void* buffer = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  TPB_CHECK(buffer != nullptr, fmt::format("host allocation of {} bytes failed", bytes));
  return buffer;
}

void HostMemoryCommunicator::release(void* buffer) { std::free(buffer); }

void HostMemoryCommunicator::copy_from_host(void* dst, const void* src, std::size_t bytes, StreamHandle) {
  std::memcpy(dst, src, bytes);
}

void HostMemoryCommunicator::copy_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle) {
  std::memcpy(dst, src, bytes);
}

}  // namespace tpb
