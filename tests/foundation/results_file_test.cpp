#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "mpi_bench/provenance.hpp"
#include "results/results_file.hpp"

namespace tpb {
namespace {

TEST(ResultsFile, MetaRoundTripAndCompleteFlagWrittenLast) {
  const RankContext ctx = bootstrap_ranks(MPI_COMM_WORLD, false);
  char arg0[] = "mpi_bench";
  char arg1[] = "info";
  char* argv[] = {arg0, arg1};
  const RunMeta meta = collect_run_meta(ctx, 2, argv);
  std::string path = (std::filesystem::temp_directory_path() / "tpb_results_meta.h5").string();
  // Every rank uses rank 0's path (one writer, many ranks).
  path += '.';
  path += std::to_string(getpid());
  int length = static_cast<int>(path.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  path.resize(static_cast<std::size_t>(length));
  MPI_Bcast(path.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);

  if (ctx.is_root()) {
    ResultsFile results(path, /*overwrite=*/true, meta);
    EXPECT_FALSE(results_file_complete(results.h5()));
    results.h5().write_dataset("/step/k1/b1_c16/t_step_us", std::vector<double>{10, 11}, {2, 1});
    results.flush();
    EXPECT_FALSE(results_file_complete(results.h5()));
    results.mark_complete();
    EXPECT_TRUE(results_file_complete(results.h5()));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // Any rank can read what rank 0 wrote.
  H5File file(path, H5Mode::read_only);
  H5Handle m = file.open_object("/meta");
  EXPECT_EQ(read_integer_attribute(m.id(), "schema_version"), kSchemaVersion);
  EXPECT_EQ(read_string_attribute(m.id(), "command_line"), "mpi_bench info");
  EXPECT_EQ(read_string_list_attribute(m.id(), "rank_map").size(), static_cast<std::size_t>(ctx.size));
  EXPECT_EQ(read_string_list_attribute(m.id(), "hostnames").size(), 1u);
  for (const char* name : {"tool_version", "git_sha", "started_at", "finished_at", "mpi_version", "hdf5_version",
                           "blas_version", "cuda_runtime_version", "nccl_version", "mpi_thread_level"})
    EXPECT_FALSE(read_string_attribute(m.id(), name).empty()) << name;
  EXPECT_EQ(read_integer_attribute(m.id(), "complete"), 1);
  EXPECT_EQ(file.read_doubles("/step/k1/b1_c16/t_step_us"), (std::vector<double>{10, 11}));
  MPI_Barrier(MPI_COMM_WORLD);
  if (ctx.is_root()) std::remove(path.c_str());
}

TEST(Provenance, TimingKnobsAreRecognised) {
  for (const char* knob : {"OMP_NUM_THREADS", "NCCL_ALGO", "OMPI_MCA_btl", "CUDA_VISIBLE_DEVICES", "GLIBC_TUNABLES",
                           "OPENBLAS_NUM_THREADS", "UCX_TLS"})
    EXPECT_TRUE(is_timing_knob(knob)) << knob;
  for (const char* other : {"HOME", "PATH", "MY_OMP_THING", "OMPI_MCA_orte_hnp_uri", "OMPI_MCA_ess_base_vpid"}) EXPECT_FALSE(is_timing_knob(other)) << other;
}

}  // namespace
}  // namespace tpb
