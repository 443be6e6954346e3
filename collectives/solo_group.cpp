#include "collectives/solo_group.hpp"

#include <vector>

#include "collectives/mpi_communicator.hpp"

namespace tpb {
namespace {

class SoloGroup final : public Communicator, public MpiBacked {
 public:
  explicit SoloGroup(Communicator& parent) : parent_(parent) {}

  // The group's collective kind: its name as --collective spells it, though none is issued.
  std::string backend_name() const override { return parent_.backend_name(); }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  MemoryKind memory_kind() const override { return parent_.memory_kind(); }
  MPI_Comm mpi_comm() const override { return MPI_COMM_SELF; }  // predefined: nothing opened

  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle stream) override {
    copy_unless_in_place(send, recv, count * element_size(type), stream);
  }
  void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type,
                  StreamHandle stream) override {
    copy_unless_in_place(send, recv, count_per_rank * element_size(type), stream);
  }
  void barrier() override {}
  void synchronize(StreamHandle stream) override { parent_.synchronize(stream); }
  std::unique_ptr<Communicator> split(int /*color*/, int /*key*/) override {
    return std::make_unique<SoloGroup>(parent_);
  }

  void* allocate(std::size_t bytes) override { return parent_.allocate(bytes); }
  void release(void* buffer) override { parent_.release(buffer); }
  void copy_from_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override {
    parent_.copy_from_host(dst, src, bytes, stream);
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override {
    parent_.copy_to_host(dst, src, bytes, stream);
  }
  StreamHandle create_stream() override { return parent_.create_stream(); }
  void destroy_stream(StreamHandle stream) override { parent_.destroy_stream(stream); }
  std::unique_ptr<ReplayableWork> capture(StreamHandle stream, const std::function<void()>& issue) override {
    return parent_.capture(stream, issue);
  }

 private:
  // Through the host, in the memory's own copies: a copy, never a collective
  // (only a sweep of a group of one moves data out of place).
  void copy_unless_in_place(const void* send, void* recv, std::size_t bytes, StreamHandle stream) {
    if (send == recv || bytes == 0) return;
    if (parent_.memory_kind() == MemoryKind::host) {
      parent_.copy_from_host(recv, send, bytes, stream);  // a memcpy on host memory
      return;
    }
    std::vector<unsigned char> staged(bytes);
    parent_.copy_to_host(staged.data(), send, bytes, stream);
    parent_.copy_from_host(recv, staged.data(), bytes, stream);
  }

  Communicator& parent_;
};

}  // namespace

std::unique_ptr<Communicator> make_solo_group(Communicator& parent) { return std::make_unique<SoloGroup>(parent); }

}  // namespace tpb
