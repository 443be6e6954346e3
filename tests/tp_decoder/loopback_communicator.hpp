#pragma once
// A TP-k group in one process for tests that run a step without MPI: it
// counts its barriers and waits, can fail at a chosen wait, and logs when it
// is destroyed.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "common/error.hpp"

namespace tpb::test {

using CallLog = std::vector<std::string>;

// A TP-k group in one process: rank 0, every peer holding the same values, so
// an all-reduce leaves the data as it is and an all-gather repeats it. Enough
// for the step to run; the numbers are not what the collectives would give.
class LoopbackCommunicator final : public Communicator {
 public:
  LoopbackCommunicator(int size, CallLog& log) : size_(size), log_(log) {}
  ~LoopbackCommunicator() override { log_.push_back("communicator_destroyed"); }

  std::string backend_name() const override { return "loopback"; }
  int rank() const override { return 0; }
  int size() const override { return size_; }
  MemoryKind memory_kind() const override { return MemoryKind::host; }
  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle) override {
    if (send != recv) std::memcpy(recv, send, count * element_size(type));
  }
  void all_gather(const void* send, void* recv, std::size_t count, DataType type, StreamHandle) override {
    const std::size_t bytes = count * element_size(type);
    const std::vector<unsigned char> mine(static_cast<const unsigned char*>(send),
                                          static_cast<const unsigned char*>(send) + bytes);
    for (int r = 0; r < size_; ++r) std::memcpy(static_cast<unsigned char*>(recv) + r * bytes, mine.data(), bytes);
  }
  void barrier() override { ++barriers_; }
  void synchronize(StreamHandle) override {
    ++waits_;
    if (fail_at_wait_ > 0 && waits_ == fail_at_wait_) throw_error("loopback", 1, "peer lost", __FILE__, __LINE__);
  }
  std::unique_ptr<Communicator> split(int, int) override { throw UsageError("loopback: no split"); }
  void* allocate(std::size_t bytes) override { return new unsigned char[bytes > 0 ? bytes : 1]; }
  void release(void* buffer) override { delete[] static_cast<unsigned char*>(buffer); }
  void copy_from_host(void* dst, const void* src, std::size_t bytes, StreamHandle) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle) override {
    std::memcpy(dst, src, bytes);
  }

  int waits() const { return waits_; }
  int barriers() const { return barriers_; }
  void fail_at_wait(int wait) { fail_at_wait_ = wait; }

 private:
  int size_;
  CallLog& log_;
  int waits_ = 0;
  int barriers_ = 0;
  int fail_at_wait_ = 0;
};

}  // namespace tpb::test
