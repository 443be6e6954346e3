#include "collectives/node_check.hpp"

#include <fmt/format.h>

#include "collectives/mpi_check.hpp"
#include "collectives/mpi_group.hpp"

namespace tpb {

void require_one_node(MPI_Comm comm, const std::string& who) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  // One leader per node: their count is the number of nodes.
  const int leaders_here = node_rank == 0 ? 1 : 0;
  int nodes = 0;
  MPI_CHECK(MPI_Allreduce(&leaders_here, &nodes, 1, MPI_INT, MPI_SUM, comm));
  int size = 1;
  MPI_CHECK(MPI_Comm_size(comm, &size));
  if (nodes != 1)
    throw UsageError(fmt::format("{}: the group of {} ranks spans {} nodes, and its shared buffer can only live "
                                 "within one node (use --collective mpi across nodes)",
                                 who, size, nodes));
}

void require_tp_groups_on_one_node(MPI_Comm world, const std::vector<int>& tp_degrees, const std::string& who) {
  int rank = 0;
  MPI_CHECK(MPI_Comm_rank(world, &rank));
  for (int k : tp_degrees) {
    const ScopedMpiComm group = ScopedMpiComm::split(world, rank / k, rank);
    require_one_node(group.get(), fmt::format("{} at TP-{}", who, k));
  }
}

}  // namespace tpb
