#include "collectives/mpi_communicator.hpp"

#include <fmt/format.h>

#include "collectives/host_memory_communicator.hpp"
#include "collectives/mpi_check.hpp"

namespace tpb {
namespace {

MPI_Datatype to_mpi(DataType type) {
  if (type != DataType::f32)
    throw UsageError(fmt::format("--datatype: '{}' is not supported by the MPI backend (use float)", to_string(type)));
  return MPI_FLOAT;
}

class MpiCommunicator final : public HostMemoryCommunicator, public MpiBacked {
 public:
  explicit MpiCommunicator(MPI_Comm parent) {
    MPI_CHECK(MPI_Comm_dup(parent, &comm_));
    MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    MPI_CHECK(MPI_Comm_size(comm_, &size_));
  }
  ~MpiCommunicator() override {
    // Not checked: a destructor must not throw, and MPI may be finalizing.
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  std::string backend_name() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MemoryKind memory_kind() const override { return MemoryKind::host; }
  MPI_Comm mpi_comm() const override { return comm_; }

  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle) override {
    const void* source = send == recv ? MPI_IN_PLACE : send;
    MPI_CHECK(MPI_Allreduce(source, recv, checked_count(count), to_mpi(type), MPI_SUM, comm_));
  }

  void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type, StreamHandle) override {
    const MPI_Datatype mpi_type = to_mpi(type);
    const int count = checked_count(count_per_rank);
    // NCCL's in-place layout (send is this rank's slot of recv) is MPI_IN_PLACE.
    const auto* own_slot =
        static_cast<const char*>(recv) + static_cast<std::size_t>(rank_) * count_per_rank * element_size(type);
    const void* source = send == own_slot ? MPI_IN_PLACE : send;
    MPI_CHECK(MPI_Allgather(source, count, mpi_type, recv, count, mpi_type, comm_));
  }

  void barrier() override { MPI_CHECK(MPI_Barrier(comm_)); }
  void synchronize(StreamHandle) override {}

  std::unique_ptr<Communicator> split(int color, int key) override {
    MPI_Comm child = MPI_COMM_NULL;
    MPI_CHECK(MPI_Comm_split(comm_, color, key, &child));
    auto result = std::make_unique<MpiCommunicator>(child);
    MPI_CHECK(MPI_Comm_free(&child));
    return result;
  }


 private:
  static int checked_count(std::size_t count) {
    TPB_CHECK(count <= static_cast<std::size_t>(INT32_MAX), fmt::format("MPI count {} exceeds INT_MAX", count));
    return static_cast<int>(count);
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator(MPI_Comm comm) { return std::make_unique<MpiCommunicator>(comm); }

MPI_Comm mpi_comm_of(const Communicator& comm) {
  if (const auto* backed = dynamic_cast<const MpiBacked*>(&comm)) return backed->mpi_comm();
  throw_error("tpbench", 1, fmt::format("{} communicator has no MPI communicator exposed", comm.backend_name()),
              __FILE__, __LINE__);
}

}  // namespace tpb
