#include "collectives/communicator_factory.hpp"

#include <fmt/format.h>

#include "collectives/mpi_communicator.hpp"
#include "common/error.hpp"
#ifdef TPB_HAVE_CUDA
#include "collectives/nccl_communicator.hpp"
#endif

namespace tpb {

void check_backend_name(const std::string& backend) {
  if (backend == "mpi") return;
  if (backend == "nccl") {
#ifdef TPB_HAVE_CUDA
    return;
#else
    throw UsageError("--backend nccl: this build has no CUDA/NCCL support");
#endif
  }
  throw UsageError(fmt::format("--backend: invalid value '{}' (expected mpi or nccl)", backend));
}

std::unique_ptr<Communicator> make_communicator(const std::string& backend, MPI_Comm comm) {
  check_backend_name(backend);
#ifdef TPB_HAVE_CUDA
  if (backend == "nccl") return make_nccl_communicator(comm);
#endif
  return make_mpi_communicator(comm);
}

std::unique_ptr<Communicator> split_into_tp_groups(Communicator& world, int k) {
  if (k < 1 || k > world.size() || world.size() % k != 0)
    throw UsageError(fmt::format("--tp: {} does not divide the {} ranks of this launch into groups (valid: {})", k,
                                 world.size(), fmt::join(tp_degrees_for(world.size()), ",")));
  return world.split(tp_group_of(world.rank(), k), world.rank());
}

std::vector<int> tp_degrees_for(int world_size) {
  std::vector<int> degrees;
  for (int k = 1; k <= world_size; ++k)
    if (world_size % k == 0) degrees.push_back(k);
  return degrees;
}

}  // namespace tpb
