// mpi_bench info: the rank -> node -> device map and library versions, and
// optionally a results file holding only /meta. The smallest real run.
#include <fmt/format.h>

#include <memory>

#include "common/cuda_info.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/provenance.hpp"
#include "mpi_bench/rank_context.hpp"
#include "results/results_file.hpp"
#include "tpb_version.hpp"

namespace tpb {
namespace {

struct InfoOptions {
  std::string output;       // -o FILE.h5, empty: print only
  bool overwrite = false;   // replace an existing results file
  bool gpu = false;         // bind ranks to GPUs
};

int run_info(const InfoOptions& options, const Invocation& invocation) {
  RankContext ranks;
  validate_collectively(MPI_COMM_WORLD, [&] {
    ranks = bootstrap_ranks(MPI_COMM_WORLD, options.gpu);
  });
  const RunMeta meta = collect_run_meta(ranks, invocation.argc, invocation.argv);
  const std::unique_ptr<ResultsFile> results = open_results_on_root(ranks, options.output, options.overwrite, meta);
  if (!ranks.is_root()) return 0;

  fmt::print("# tpbench {} ({})  ranks: {}  nodes: {}\n", TPB_TOOL_VERSION, TPB_GIT_SHA, ranks.size,
             meta.hostnames.size());
  fmt::print("# {:>5} {:<24} {:>10} {:>4}  {}\n", "rank", "node", "local_rank", "gpu", "device");
  for (const auto& p : ranks.rank_map)
    fmt::print("# {:>5} {:<24} {:>10} {:>4}  {}\n", p.rank, p.node, p.local_rank, p.gpu, p.device);
  for (const auto& [name, version] : meta.versions) fmt::print("# {:<22} {}\n", name, version);
  for (const auto& variable : meta.environment) fmt::print("# env {}\n", variable);
  complete_results(results, options.output);
  return 0;
}

}  // namespace

void add_info_command(CLI::App& root, CommandList& commands) {
  add_command<InfoOptions>(
      root, commands, "info", "Show the rank -> node -> device map and library versions",
      [](CLI::App& app, InfoOptions& options) {
        app.add_option("-o,--output", options.output, "Write a results file holding only /meta");
        app.add_flag("--overwrite", options.overwrite, "Replace an existing results file");
        app.add_flag("--gpu", options.gpu, "Bind each rank to a GPU (local rank mod visible GPUs)");
      },
      run_info);
}

}  // namespace tpb
