#pragma once
// Collects /meta provenance: command line, nodes, rank map, library versions
// and the environment variables that change timing.
#include <memory>
#include <string>

#include "mpi_bench/rank_context.hpp"
#include "results/results_file.hpp"

namespace tpb {

// Collective only in what RankContext already gathered; cheap on every rank.
RunMeta collect_run_meta(const RankContext& ranks, int argc, char** argv);

// True for variables that change timing: OMP_*, GOMP_*, OPENBLAS_*, NCCL_*,
// OMPI_MCA_*, UCX_*, CUDA_*, GLIBC_TUNABLES.
bool is_timing_knob(const std::string& variable_name);

// The command's results file: opened by rank 0 when `path` is given (-o),
// with /meta from `meta`; null on every other rank. A path rank 0 cannot open
// is a UsageError on every rank.
std::unique_ptr<ResultsFile> open_results_on_root(const RankContext& ranks, const std::string& path, bool overwrite,
                                                  const RunMeta& meta);

// A command's last word on its results file, where it wrote one (rank 0, -o
// given): marks it complete and prints "# results: PATH" (or `said`: PATH).
void complete_results(const std::unique_ptr<ResultsFile>& results, const std::string& path,
                      const char* said = "results");

}  // namespace tpb
