#pragma once
// Rank bootstrap: who am I, which node, which local slot, which device, and
// the job-wide rank -> node -> device map (identical on every rank).
#include <mpi.h>

#include <string>
#include <vector>

namespace tpb {

struct RankPlacement {
  int rank = 0;
  std::string node;       // MPI_Get_processor_name
  int local_rank = 0;     // index among the ranks sharing this node
  int local_size = 1;     // ranks sharing this node
  int gpu = -1;           // CUDA device index, -1 when the rank runs on the CPU
  std::string device;     // "NVIDIA H200" or "cpu (N OpenMP threads)"
  int omp_threads = 1;    // OpenMP threads this rank uses
};

struct RankContext {
  MPI_Comm world = MPI_COMM_WORLD;
  int rank = 0;
  int size = 1;
  RankPlacement self;
  std::vector<RankPlacement> rank_map;  // indexed by world rank
  bool is_root() const { return rank == 0; }
};

// Owns MPI_Init_thread / MPI_Finalize. MPI_COMM_WORLD is switched to
// MPI_ERRORS_RETURN so failures become tpb::Error via MPI_CHECK.
class MpiSession {
 public:
  // At the thread level TPB_MPI_THREAD asks for (mpi_thread_level.hpp).
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  // A bad TPB_MPI_THREAD, as a usage error's message; empty when none.
  const std::string& problem() const { return problem_; }

 private:
  std::string problem_;
};

// Collective over `world`. With use_gpu, binds local rank i to GPU i mod
// visible GPUs; otherwise sets this rank's OpenMP threads to the cores it may
// run on (unless OMP_NUM_THREADS says otherwise).
RankContext bootstrap_ranks(MPI_Comm world, bool use_gpu);

}  // namespace tpb
