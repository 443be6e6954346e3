#include "collectives/communicator_factory.hpp"

#include <fmt/format.h>

#include <atomic>

#include "collectives/mpi_communicator.hpp"
#include "collectives/oneshot_communicator.hpp"
#include "collectives/solo_group.hpp"
#include "common/error.hpp"
#ifdef TPB_HAVE_CUDA
#include "collectives/nccl_communicator.hpp"
#include "collectives/oneshot_cuda_communicator.hpp"
#endif

namespace tpb {
namespace {

std::atomic<long> opened{0};

// Counts a communicator the factory hands out.
std::unique_ptr<Communicator> counted(std::unique_ptr<Communicator> comm) {
  opened.fetch_add(1, std::memory_order_relaxed);
  return comm;
}

// UsageError unless a communicator of `kind` works on `memory`.
void require_memory(CollectiveKind kind, MemoryKind memory, MemoryKind works_on) {
  if (memory != works_on)
    throw UsageError(fmt::format("--collective {}: works on {} memory, and the data lives in {} memory (use {})",
                                 to_string(kind), to_string(works_on), to_string(memory),
                                 memory == MemoryKind::host ? "mpi or oneshot" : "nccl or oneshot"));
}

}  // namespace

MemoryKind decoder_memory(BackendKind backend) {
  return backend == BackendKind::cuda ? MemoryKind::device : MemoryKind::host;
}

MemoryKind collective_memory(CollectiveKind kind, BackendKind backend) {
  switch (kind) {
    case CollectiveKind::mpi: return MemoryKind::host;
    case CollectiveKind::nccl: return MemoryKind::device;
    case CollectiveKind::oneshot: break;
  }
  return decoder_memory(backend);
}

void require_built(CollectiveKind kind, std::string_view flag) {
#ifndef TPB_HAVE_CUDA
  if (kind == CollectiveKind::nccl) throw UsageError(fmt::format("{} nccl: this build has no CUDA/NCCL support", flag));
#else
  (void)kind;
  (void)flag;
#endif
}

void require_collective_for_backend(CollectiveKind kind, BackendKind backend, std::string_view flag) {
  const MemoryKind decoder = decoder_memory(backend);
  if (collective_memory(kind, backend) != decoder)
    throw UsageError(fmt::format("{}: '{}' does not work on the {} backend's {} memory", flag, to_string(kind),
                                 to_string(backend), to_string(decoder)));
}

std::unique_ptr<Communicator> make_communicator(CollectiveKind kind, MemoryKind memory, MPI_Comm comm) {
  require_built(kind);
  switch (kind) {
    case CollectiveKind::mpi:
      require_memory(kind, memory, MemoryKind::host);
      return counted(make_mpi_communicator(comm));
    case CollectiveKind::nccl:
      require_memory(kind, memory, MemoryKind::device);
#ifdef TPB_HAVE_CUDA
      return counted(make_nccl_communicator(comm));
#else
      break;
#endif
    case CollectiveKind::oneshot:
      if (memory == MemoryKind::host) return counted(make_oneshot_communicator(comm));
#ifdef TPB_HAVE_CUDA
      return counted(make_oneshot_cuda_communicator(comm));
#else
      throw UsageError("--collective oneshot: device memory needs CUDA IPC, and this build has no CUDA support");
#endif
  }
  throw UsageError("--collective: unknown communicator");
}

std::unique_ptr<Communicator> make_communicator(CollectiveKind kind, MPI_Comm comm) {
  return make_communicator(kind, collective_memory(kind, BackendKind::cpu), comm);
}

std::unique_ptr<Communicator> make_communicator(const std::string& name, MPI_Comm comm) {
  return make_communicator(parse_collective_kind("--collective", name), comm);
}

std::unique_ptr<Communicator> split_into_tp_groups(Communicator& world, int k) {
  require_tp_degree(k, world.size());
  if (k == 1) return make_solo_group(world);  // k = 1 has no collective: nothing to open
  return counted(world.split(tp_group_of(world.rank(), k), world.rank()));
}

long communicators_opened() { return opened.load(std::memory_order_relaxed); }

std::vector<int> tp_degrees_for(int world_size) {
  std::vector<int> degrees;
  for (int k = 1; k <= world_size; ++k)
    if (world_size % k == 0) degrees.push_back(k);
  return degrees;
}

void require_tp_degree(int k, int world_size) {
  if (k > world_size) throw UsageError(fmt::format("--tp: {} exceeds the {} ranks of this launch", k, world_size));
  if (k < 1 || world_size % k != 0)
    throw UsageError(fmt::format("--tp: {} does not divide the {} ranks of this launch (valid: {})", k, world_size,
                                 fmt::join(tp_degrees_for(world_size), ",")));
}

}  // namespace tpb
