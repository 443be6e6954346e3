// mpi_bench membw: memory read bandwidth per rank (STREAM-like read with an
// OpenMP SIMD reduction), the bound for the memory-bound CPU decode step.
#include "mpi_bench/membw.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "collectives/mpi_check.hpp"
#include "collectives/sample_gather.hpp"
#include "mpi_bench/rank_medians.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"
#include "mpi_bench/checked_option.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/provenance.hpp"
#include "mpi_bench/rank_context.hpp"
#include "predictor/statistics.hpp"
#include "results/probe_file.hpp"
#include "results/results_file.hpp"
#include "tp_decoder/cpu/roofline.hpp"
#include "tp_decoder/cpu/small_batch_gemm.hpp"
#include "tp_decoder/decode_step.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {

MembwResult measure_read_bandwidth(MPI_Comm comm, const MembwOptions& options) {
  const std::size_t count = options.bytes / sizeof(float);
  TPB_CHECK(count > 0, "membw: the array must hold at least one float");
  std::unique_ptr<float[]> array(new float[count]);
  float* a = array.get();
  // First touch by the threads that read it later (contiguous shares).
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < count; ++i) a[i] = static_cast<float>(i % 7);

  MembwResult result;
  result.bytes = count * sizeof(float);
  result.threads = omp_get_max_threads();
  for (int pass = 0; pass < options.warmup + options.iters; ++pass) {
    MPI_CHECK(MPI_Barrier(comm));
    const double rate = read_pass_GBps(a, count);
    if (pass >= options.warmup) result.read_GBps.push_back(rate);
  }
  MPI_CHECK(MPI_Barrier(comm));
  result.fma_peak_GFLOPs = fma_peak_GFLOPs(7);
  return result;
}

std::vector<double> gather_membw(MPI_Comm comm, H5File* file, const MembwResult& mine) {
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_CHECK(MPI_Comm_size(comm, &size));
  const std::vector<double> matrix = gather_by_iteration(comm, mine.read_GBps);
  if (rank == 0 && file != nullptr)
    write_membw(*file, {matrix, static_cast<int>(mine.read_GBps.size()), size, static_cast<std::int64_t>(mine.bytes)},
                mine.threads, mine.fma_peak_GFLOPs);
  return matrix;
}

std::string matmul_phase_fractions(const ModelConfig& config, int tp, int batch, const StepTerms& terms,
                                   double read_GBps, double fma_peak_GFLOPs, int threads) {
  const ShardPlan plan = make_shard_plan(config, tp, 0);
  const std::int64_t hidden = plan.hidden;
  struct Product {
    Phase phase;
    std::int64_t n, k, times;  // output rows of the weight, its columns, calls per step
  };
  const std::int64_t layers = config.num_layers;
  std::vector<Product> products = {
      {Phase::qkv, static_cast<std::int64_t>(plan.q_heads + 2 * plan.kv_heads) * plan.head_dim, hidden, layers},
      {Phase::o_proj, hidden, static_cast<std::int64_t>(plan.q_heads) * plan.head_dim, layers},
      {Phase::lm_head, plan.vocab, hidden, 1}};
  // A sparse layer's gate_up and down mix experts of two widths (routed and
  // shared), so only the dense MLP's have one limit to compare with.
  if (!config.is_moe()) {
    const Product mlp[] = {{Phase::gate_up, 2 * static_cast<std::int64_t>(plan.intermediate), hidden, layers},
                           {Phase::down, hidden, plan.intermediate, layers}};
    products.insert(products.begin() + 2, std::begin(mlp), std::end(mlp));  // before the LM head, in step order
  }
  std::string line = "#   matmul phases, limit / time:";
  for (const Product& p : products) {
    const auto& samples = terms.phase_us[static_cast<std::size_t>(p.phase)];
    const char* name = kPhases[static_cast<int>(p.phase)].second;
    if (samples.empty()) {
      line += fmt::format(" {} -", name);
      continue;
    }
    const double limit = static_cast<double>(p.times) *
                         matmul_limit_us(batch, p.n, p.k, read_GBps, fma_peak_GFLOPs * std::max(1, threads));
    line += fmt::format(" {} {:.2f}", name, limit / median(samples));
  }
  return line;
}

namespace {

struct MembwCommandOptions : BandwidthOptions {
  MembwCommandOptions() : BandwidthOptions({512 << 20, "512M"}, 2, 10) {}
};

int run_membw(const MembwCommandOptions& o, const Invocation& invocation) {
  RankContext ranks;
  MembwOptions options;
  validate_collectively(MPI_COMM_WORLD, [&] {
    options = o.probe_options<MembwOptions>(sizeof(float));
    ranks = bootstrap_ranks(MPI_COMM_WORLD, false);
  });
  const RunMeta meta = collect_run_meta(ranks, invocation.argc, invocation.argv);
  const std::unique_ptr<ResultsFile> results = open_results_on_root(ranks, o.output, o.overwrite, meta);
  const MembwResult mine = measure_read_bandwidth(MPI_COMM_WORLD, options);
  const std::vector<double> matrix = gather_membw(MPI_COMM_WORLD, results ? &results->h5() : nullptr, mine);
  if (!ranks.is_root()) return 0;
  fmt::print("# membw: read of {} per rank, {} passes, every rank at once (GB = 1e9 B)\n", format_bytes(mine.bytes),
             options.iters);
  const std::vector<double> medians = print_rank_medians(
      {"threads", [&](int r) { return std::to_string(ranks.rank_map[static_cast<std::size_t>(r)].omp_threads); }, 8,
       "read_GBps", 14, 2},
      matrix, ranks.size);
  double total = 0;
  for (double m : medians) total += m;
  fmt::print("# all ranks together: {:.2f} GB/s\n", total);
  fmt::print("# FMA peak, one core of rank 0 ({} chains, best of 7): {:.1f} GFLOP/s\n",
             to_string(small_batch_gemm_isa()), mine.fma_peak_GFLOPs);
  complete_results(results, o.output);
  return 0;
}

}  // namespace

void add_membw_command(CLI::App& root, CommandList& commands) {
  add_command<MembwCommandOptions>(
      root, commands, "membw", "Memory read bandwidth per rank (STREAM-like read, four streams per thread)",
      [](CLI::App& app, MembwCommandOptions& options) {
        add_bandwidth_options(app, options, "Array size per rank", "passes", "/membw/read_GBps");
      },
      run_membw);
}

}  // namespace tpb
