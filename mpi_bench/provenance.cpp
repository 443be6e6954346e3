#include "mpi_bench/provenance.hpp"

#include <cblas.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hdf5.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>

#include "common/clock.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/mpi_thread_level.hpp"
#include "common/cuda_info.hpp"

extern char** environ;

namespace tpb {
namespace {

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  // Open MPI appends a long line with a repository tag: keep the first line.
  version = version.substr(0, version.find_first_of("\n,"));
  return version;
}

std::string hdf5_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return fmt::format("{}.{}.{}", major, minor, release);
}

}  // namespace

bool is_timing_knob(const std::string& variable_name) {
  // Bookkeeping that Open MPI's launcher exports to every rank: not a knob.
  static constexpr std::array<const char*, 5> launcher_bookkeeping = {
      "OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_initial_wdir", "OMPI_MCA_pmix", "OMPI_MCA_shmem_RUNTIME"};
  if (std::any_of(launcher_bookkeeping.begin(), launcher_bookkeeping.end(),
                  [&](const char* prefix) { return variable_name.rfind(prefix, 0) == 0; }))
    return false;
  static constexpr std::array<const char*, 9> prefixes = {"OMP_",      "GOMP_", "OPENBLAS_",     "NCCL_",
                                                          "OMPI_MCA_", "UCX_",  "CUDA_",         "GLIBC_TUNABLES",
                                                          "TPB_MPI_THREAD"};
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const char* prefix) { return variable_name.rfind(prefix, 0) == 0; });
}

RunMeta collect_run_meta(const RankContext& ranks, int argc, char** argv) {
  RunMeta meta;
  meta.command_line = fmt::format("{}", fmt::join(argv, argv + argc, " "));
  meta.started_at = iso8601_utc_now();

  for (const auto& placement : ranks.rank_map) {
    if (std::find(meta.hostnames.begin(), meta.hostnames.end(), placement.node) == meta.hostnames.end())
      meta.hostnames.push_back(placement.node);
    nlohmann::json row = {{"rank", placement.rank},         {"node", placement.node},
                          {"local_rank", placement.local_rank}, {"gpu", placement.gpu},
                          {"device", placement.device},     {"omp_threads", placement.omp_threads}};
    meta.rank_map.push_back(row.dump());
  }

  meta.versions.emplace_back("mpi_version", mpi_library_version());
  // How the library was initialised changes its per-call cost (mpi_thread_level.hpp).
  meta.versions.emplace_back("mpi_thread_level", provided_mpi_thread_level());
  meta.versions.emplace_back("hdf5_version", hdf5_version());
  meta.versions.emplace_back("blas_version", openblas_get_config());
  const CudaInfo cuda = query_cuda_info();
  meta.versions.emplace_back("cuda_runtime_version", cuda.compiled_in ? cuda.runtime_version : "not compiled in");
  meta.versions.emplace_back("cuda_driver_version", cuda.driver_version.empty() ? "none" : cuda.driver_version);
  meta.versions.emplace_back("nccl_version", cuda.compiled_in ? cuda.nccl_version : "not compiled in");
  if (!cuda.device_error.empty()) meta.versions.emplace_back("cuda_device_error", cuda.device_error);

  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    if (is_timing_knob(name)) meta.environment.push_back(text);
  }
  std::sort(meta.environment.begin(), meta.environment.end());

  // Scheduler facts, when launched by Slurm: enough to find the job again
  // (sacct -j) and to tell jobs on different partitions or node counts apart.
  for (const char* name : {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_JOB_GPUS", "SLURM_STEP_GPUS",
                           "SLURM_CLUSTER_NAME", "SLURM_JOB_PARTITION", "SLURM_JOB_NUM_NODES", "SLURM_GPUS_ON_NODE"}) {
    if (const char* value = std::getenv(name)) {
      std::string key = name;
      std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
      meta.job.emplace_back(key, value);
    }
  }
  return meta;
}

std::unique_ptr<ResultsFile> open_results_on_root(const RankContext& ranks, const std::string& path, bool overwrite,
                                                  const RunMeta& meta) {
  std::unique_ptr<ResultsFile> results;
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (ranks.is_root() && !path.empty()) results = std::make_unique<ResultsFile>(path, overwrite, meta);
  });
  return results;
}

void complete_results(const std::unique_ptr<ResultsFile>& results, const std::string& path, const char* said) {
  if (!results) return;
  results->mark_complete();
  fmt::print("# {}: {}\n", said, path);
}

}  // namespace tpb
