// mpi_bench d2d: device-to-device copy bandwidth of each rank's GPU, all ranks
// at once: the bound for the memory-bound GPU decode step (weight_GBps of
// `step` against it), as membw is for the CPU step.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "mpi_bench/rank_medians.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"
#include "mpi_bench/checked_option.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/provenance.hpp"
#include "mpi_bench/rank_context.hpp"
#include "predictor/statistics.hpp"
#include "results/results_file.hpp"
#if defined(TPB_CUDA_BACKEND)
#include "mpi_bench/device_probes.hpp"  // gather_d2d_copy
#endif

namespace tpb {
namespace {

struct D2dCommandOptions : BandwidthOptions {
  D2dCommandOptions() : BandwidthOptions({1 << 30, "1G"}, 3, 20) {}
};

int run_d2d(const D2dCommandOptions& o, const Invocation& invocation) {
#if !defined(TPB_CUDA_BACKEND)
  (void)o;
  (void)invocation;
  validate_collectively(MPI_COMM_WORLD, [&] {
    throw UsageError("d2d: this build has no CUDA support (rebuild where nvcc is found, TPB_CUDA=AUTO or ON)");
  });
  return kExitUsage;
#else
  RankContext ranks;
  D2dCopyOptions options;
  validate_collectively(MPI_COMM_WORLD, [&] {
    options = o.probe_options<D2dCopyOptions>(1);
    ranks = bootstrap_ranks(MPI_COMM_WORLD, true);
  });
  const RunMeta meta = collect_run_meta(ranks, invocation.argc, invocation.argv);
  const std::unique_ptr<ResultsFile> results = open_results_on_root(ranks, o.output, o.overwrite, meta);
  // /d2d/copy_GBps (iters x ranks); rank 0 writes, every rank gathers.
  const std::vector<double> matrix = gather_d2d_copy(MPI_COMM_WORLD, results ? &results->h5() : nullptr, options);

  if (!ranks.is_root()) return 0;
  fmt::print(
      "# d2d: device-to-device copy of {} per rank, {} copies, every rank at once; "
      "copy_GBps counts bytes read + written (GB = 1e9 B)\n",
      format_bytes(options.bytes), options.iters);
  print_rank_medians({"device", [&](int r) { return ranks.rank_map[static_cast<std::size_t>(r)].device; }, 24,
                      "copy_GBps", 12, 1},
                     matrix, ranks.size);
  complete_results(results, o.output);
  return 0;
#endif
}

}  // namespace

void add_d2d_command(CLI::App& root, CommandList& commands) {
  add_command<D2dCommandOptions>(
      root, commands, "d2d", "Device-to-device copy bandwidth per GPU (the GPU step's memory bound)",
      [](CLI::App& app, D2dCommandOptions& options) {
        add_bandwidth_options(app, options, "Bytes per copy", "copies", "/d2d/copy_GBps");
      },
      run_d2d);
}

}  // namespace tpb
