#pragma once
// The shared test fake of the collectives tests: a communicator that forwards
// every call to a real one (MPI in the tests). A test decorator derives from
// it and overrides only the calls it changes or records.
#include <memory>
#include <string>
#include <utility>

#include "collectives/communicator.hpp"
#include "collectives/mpi_communicator.hpp"

namespace tpb::test {

class DelegatingCommunicator : public Communicator, public MpiBacked {
 public:
  explicit DelegatingCommunicator(std::unique_ptr<Communicator> inner) : inner_(std::move(inner)) {}

  MPI_Comm mpi_comm() const override { return mpi_comm_of(*inner_); }
  std::string backend_name() const override { return inner_->backend_name(); }
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  MemoryKind memory_kind() const override { return inner_->memory_kind(); }
  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle s) override {
    inner_->all_reduce(send, recv, count, type, s);
  }
  void all_gather(const void* send, void* recv, std::size_t count, DataType type, StreamHandle s) override {
    inner_->all_gather(send, recv, count, type, s);
  }
  void barrier() override { inner_->barrier(); }
  void synchronize(StreamHandle s) override { inner_->synchronize(s); }
  std::unique_ptr<Communicator> split(int color, int key) override { return inner_->split(color, key); }
  void* allocate(std::size_t bytes) override { return inner_->allocate(bytes); }
  void release(void* buffer) override { inner_->release(buffer); }
  void copy_from_host(void* d, const void* s, std::size_t b, StreamHandle st) override {
    inner_->copy_from_host(d, s, b, st);
  }
  void copy_to_host(void* d, const void* s, std::size_t b, StreamHandle st) override {
    inner_->copy_to_host(d, s, b, st);
  }

 private:
  std::unique_ptr<Communicator> inner_;
};

}  // namespace tpb::test
