// mpi_bench membw: memory read bandwidth per rank (STREAM-like read with an
// OpenMP SIMD reduction), the bound for the memory-bound CPU decode step.
#include "mpi_bench/membw.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
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
#include "results/results_file.hpp"

namespace tpb {

MembwResult measure_read_bandwidth(MPI_Comm comm, const MembwOptions& options) {
  const std::size_t count = options.bytes / sizeof(double);
  TPB_CHECK(count > 0, "membw: the array must hold at least one double");
  std::unique_ptr<double[]> array(new double[count]);
  double* a = array.get();
  // First touch by the threads that read it later (same static schedule).
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < count; ++i) a[i] = static_cast<double>(i % 7);

  MembwResult result;
  result.bytes = count * sizeof(double);
  result.threads = omp_get_max_threads();
  volatile double sink = 0;  // keeps the sums observable so no pass is optimised away
  for (int pass = 0; pass < options.warmup + options.iters; ++pass) {
    MPI_CHECK(MPI_Barrier(comm));
    const auto start = std::chrono::steady_clock::now();
    double sum = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
    for (std::size_t i = 0; i < count; ++i) sum += a[i];
    const auto end = std::chrono::steady_clock::now();
    sink = sink + sum;
    if (pass < options.warmup) continue;
    const double seconds = std::chrono::duration<double>(end - start).count();
    result.read_GBps.push_back(static_cast<double>(result.bytes) / seconds / 1e9);
  }
  return result;
}

std::vector<double> write_membw(MPI_Comm comm, H5File* file, const MembwResult& mine) {
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_CHECK(MPI_Comm_size(comm, &size));
  const int iters = static_cast<int>(mine.read_GBps.size());
  const std::vector<double> matrix = gather_by_iteration(comm, mine.read_GBps);
  if (rank != 0 || file == nullptr) return matrix;
  file->write_dataset(kMembwReadGBps, matrix, {static_cast<std::uint64_t>(iters), static_cast<std::uint64_t>(size)});
  H5Handle group = file->group(kMembwGroup);
  write_attribute(group.id(), "bytes", static_cast<std::int64_t>(mine.bytes));
  write_attribute(group.id(), "threads", std::int64_t{mine.threads});
  write_attribute(group.id(), "method", std::string("sum of a double array, OpenMP parallel for simd reduction, "
                                                    "every rank at once, GB = 1e9 bytes"));
  return matrix;
}

namespace {

struct MembwCommandOptions {
  ByteSize bytes{512 << 20, "512M"};  // --bytes
  int warmup = 2;                      // -w
  int iters = 10;                      // -n
  std::string output;                  // -o FILE.h5
  bool overwrite = false;
};

int run_membw(const MembwCommandOptions& o, const Invocation& invocation) {
  RankContext ranks;
  MembwOptions options;
  std::unique_ptr<ResultsFile> results;
  validate_collectively(MPI_COMM_WORLD, [&] {
    options.bytes = static_cast<std::size_t>(o.bytes.bytes);
    if (options.bytes < sizeof(double))
      throw UsageError(fmt::format("--bytes: invalid value '{}' (expected at least 8)", o.bytes.text));
    options.warmup = o.warmup;
    options.iters = o.iters;
    ranks = bootstrap_ranks(MPI_COMM_WORLD, false);
  });
  const RunMeta meta = collect_run_meta(ranks, invocation.argc, invocation.argv);
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (ranks.is_root() && !o.output.empty()) results = std::make_unique<ResultsFile>(o.output, o.overwrite, meta);
  });
  const MembwResult mine = measure_read_bandwidth(MPI_COMM_WORLD, options);
  const std::vector<double> matrix = write_membw(MPI_COMM_WORLD, results ? &results->h5() : nullptr, mine);
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
  if (results) {
    results->mark_complete();
    fmt::print("# results: {}\n", o.output);
  }
  return 0;
}

}  // namespace

void add_membw_command(CLI::App& root, CommandList& commands) {
  add_command<MembwCommandOptions>(
      root, commands, "membw", "Memory read bandwidth per rank (STREAM-like read, OpenMP SIMD sum)",
      [](CLI::App& app, MembwCommandOptions& options) {
        add_byte_size_option(app, "--bytes", "--bytes", options.bytes, "Array size per rank (K/M/G suffixes)");
        add_count_option(app, "-w,--warmup", "-w/--warmup", options.warmup, 0, "Untimed passes");
        add_count_option(app, "-n,--iters", "-n/--iters", options.iters, 1, "Timed passes");
        app.add_option("-o,--output", options.output, "Results file (HDF5): /membw/read_GBps");
        app.add_flag("--overwrite", options.overwrite, "Replace an existing results file");
      },
      run_membw);
}

}  // namespace tpb
