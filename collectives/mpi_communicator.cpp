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

class MpiCommunicator final : public HostMemoryCommunicator {
 public:
  using HostMemoryCommunicator::HostMemoryCommunicator;

  std::string backend_name() const override { return "mpi"; }

  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle) override {
    const void* source = send == recv ? MPI_IN_PLACE : send;
    MPI_CHECK(MPI_Allreduce(source, recv, checked_count(count), to_mpi(type), MPI_SUM, mpi_comm()));
  }

  void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type, StreamHandle) override {
    const MPI_Datatype mpi_type = to_mpi(type);
    const int count = checked_count(count_per_rank);
    // NCCL's in-place layout (send is this rank's slot of recv) is MPI_IN_PLACE.
    const auto* own_slot =
        static_cast<const char*>(recv) + static_cast<std::size_t>(rank()) * count_per_rank * element_size(type);
    const void* source = send == own_slot ? MPI_IN_PLACE : send;
    MPI_CHECK(MPI_Allgather(source, count, mpi_type, recv, count, mpi_type, mpi_comm()));
  }

  void synchronize(StreamHandle) override {}

  std::unique_ptr<Communicator> split(int color, int key) override {
    return std::make_unique<MpiCommunicator>(split_group(color, key).get());
  }

 private:
  static int checked_count(std::size_t count) {
    TPB_CHECK(count <= static_cast<std::size_t>(INT32_MAX), fmt::format("MPI count {} exceeds INT_MAX", count));
    return static_cast<int>(count);
  }
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator(MPI_Comm comm) { return std::make_unique<MpiCommunicator>(comm); }

MPI_Comm mpi_comm_of(const Communicator& comm) {
  if (const auto* backed = dynamic_cast<const MpiBacked*>(&comm)) return backed->mpi_comm();
  throw_error("tpbench", 1, fmt::format("{} communicator has no MPI communicator exposed", comm.backend_name()),
              __FILE__, __LINE__);
}

}  // namespace tpb
