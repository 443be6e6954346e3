#include "mpi_bench/rank_context.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <sched.h>

#include <cstdlib>

#include "collectives/mpi_check.hpp"
#include "common/cuda_info.hpp"
#include "common/error.hpp"
#include "mpi_bench/mpi_thread_level.hpp"

namespace tpb {
namespace {

// Strings travel as fixed-size fields: node names are short and bounded by MPI.
constexpr int kNameField = MPI_MAX_PROCESSOR_NAME;
constexpr int kDeviceField = 128;

struct PackedPlacement {
  int rank;
  int local_rank;
  int local_size;
  int gpu;
  int omp_threads;
  char node[kNameField];
  char device[kDeviceField];
};

PackedPlacement pack(const RankPlacement& p) {
  PackedPlacement packed{
      .rank = p.rank, .local_rank = p.local_rank, .local_size = p.local_size, .gpu = p.gpu,
      .omp_threads = p.omp_threads, .node = {}, .device = {}};
  fmt::format_to_n(packed.node, kNameField - 1, "{}", p.node);
  fmt::format_to_n(packed.device, kDeviceField - 1, "{}", p.device);
  return packed;
}

RankPlacement unpack(const PackedPlacement& packed) {
  return {.rank = packed.rank, .node = packed.node, .local_rank = packed.local_rank,
          .local_size = packed.local_size, .gpu = packed.gpu, .device = packed.device,
          .omp_threads = packed.omp_threads};
}

// Cores this process is allowed to run on (sched_getaffinity).
int allowed_core_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
  int requested = MPI_THREAD_FUNNELED;
  try {
    requested = requested_mpi_thread_level(std::getenv("TPB_MPI_THREAD"));
  } catch (const UsageError& error) {
    // Reported after MPI_Init, by rank 0, with every rank exiting 2.
    problem_ = error.what();
  }
  int provided = 0;
  MPI_CHECK(MPI_Init_thread(&argc, &argv, requested, &provided));
  MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

RankContext bootstrap_ranks(MPI_Comm world, bool use_gpu) {
  RankContext ctx;
  ctx.world = world;
  MPI_CHECK(MPI_Comm_rank(world, &ctx.rank));
  MPI_CHECK(MPI_Comm_size(world, &ctx.size));

  char name[MPI_MAX_PROCESSOR_NAME];
  int name_length = 0;
  MPI_CHECK(MPI_Get_processor_name(name, &name_length));
  ctx.self.rank = ctx.rank;
  ctx.self.node.assign(name, static_cast<std::size_t>(name_length));
  set_error_context(ctx.rank, ctx.self.node);

  MPI_Comm node_comm = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, ctx.rank, MPI_INFO_NULL, &node_comm));
  MPI_CHECK(MPI_Comm_rank(node_comm, &ctx.self.local_rank));
  MPI_CHECK(MPI_Comm_size(node_comm, &ctx.self.local_size));
  MPI_CHECK(MPI_Comm_free(&node_comm));

  if (use_gpu) {
    const CudaInfo cuda = query_cuda_info();
    if (cuda.device_count == 0)
      throw UsageError(fmt::format("--backend: a GPU backend was requested but this rank sees no CUDA device{}",
                                   cuda.device_error.empty() ? std::string() : " (" + cuda.device_error + ")"));
    ctx.self.gpu = ctx.self.local_rank % cuda.device_count;
    bind_cuda_device(ctx.self.gpu);
    ctx.self.device = cuda.device_names[static_cast<std::size_t>(ctx.self.gpu)];
    ctx.self.omp_threads = 1;
  } else {
    // OMP_NUM_THREADS wins when set; otherwise use every core this rank may
    // run on (mpirun binds one core per rank by default).
    if (std::getenv("OMP_NUM_THREADS") == nullptr) omp_set_num_threads(allowed_core_count());
    ctx.self.omp_threads = omp_get_max_threads();
    ctx.self.device = fmt::format("cpu ({} OpenMP threads)", ctx.self.omp_threads);
  }

  const PackedPlacement mine = pack(ctx.self);
  std::vector<PackedPlacement> all(static_cast<std::size_t>(ctx.size));
  MPI_CHECK(MPI_Allgather(&mine, sizeof(PackedPlacement), MPI_BYTE, all.data(), sizeof(PackedPlacement), MPI_BYTE,
                          world));
  ctx.rank_map.reserve(all.size());
  for (const auto& packed : all) ctx.rank_map.push_back(unpack(packed));
  return ctx;
}

}  // namespace tpb
