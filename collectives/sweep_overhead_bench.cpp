// sweep_overhead_bench: does the sweep harness report what a bare
// MPI_Allreduce loop measures? On the same ranks, at each size from 8 B to
// 16 MiB, alternates a minimal timed loop of MPI_Allreduce calls with the
// harness (run_collective_sweep of all_reduce_spec, one size) and prints
// harness/raw per size and its median. Repetitions are interleaved so both
// see the same machine state.
// Usage: mpirun -np N sweep_overhead_bench [repetitions] [iters]
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/sweep_harness.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"
#include "common/samples.hpp"

namespace tpb {
namespace {

constexpr std::size_t kMinBytes = 8;
constexpr std::size_t kMaxBytes = std::size_t{16} << 20;
constexpr int kWarmupCalls = 5;

// The slowest rank's mean time per call of `iters` back-to-back calls.
double raw_allreduce_us(const std::vector<float>& send, std::vector<float>& recv, std::size_t count, int iters) {
  const int n = static_cast<int>(count);
  for (int i = 0; i < kWarmupCalls; ++i)
    MPI_CHECK(MPI_Allreduce(send.data(), recv.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double start = MPI_Wtime();
  for (int i = 0; i < iters; ++i)
    MPI_CHECK(MPI_Allreduce(send.data(), recv.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  const double mine = (MPI_Wtime() - start) / iters * 1e6;
  double slowest = 0.0;
  MPI_CHECK(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return slowest;
}

int run(int argc, char** argv) {
  const int repetitions = argc > 1 ? static_cast<int>(parse_integer("repetitions", argv[1], 1)) : 5;
  const int iters = argc > 2 ? static_cast<int>(parse_integer("iters", argv[2], 1)) : 50;
  const auto world = make_communicator("mpi", MPI_COMM_WORLD);
  const std::vector<std::size_t> sizes = sweep_sizes(kMinBytes, kMaxBytes, 2, 0);
  std::vector<float> send(kMaxBytes / sizeof(float), 1.0f);
  std::vector<float> recv(kMaxBytes / sizeof(float), 0.0f);

  std::vector<std::vector<double>> raw(sizes.size()), harness(sizes.size());
  for (int rep = 0; rep < repetitions; ++rep)
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      raw[s].push_back(raw_allreduce_us(send, recv, sizes[s] / sizeof(float), iters));
      SweepOptions options;
      options.sizes_bytes = {sizes[s]};
      options.iters = iters;
      options.warmup_iters = kWarmupCalls;
      harness[s].push_back(run_collective_sweep(*world, all_reduce_spec(), options).points[0].out_of_place.time_us);
    }
  if (world->rank() != 0) return 0;

  // Medians describe the typical run; minima the quiet-machine cost, which
  // is what overhead means when other load only ever adds time.
  fmt::print("# sweep harness vs raw MPI_Allreduce loop: {} ranks, {} iterations, {} interleaved repetitions\n",
             world->size(), iters, repetitions);
  fmt::print("# raw: slowest rank's mean per call of the loop; harness: median over iterations of the slowest rank\n");
  fmt::print("#{:>11} {:>11} {:>11} {:>7}  {:>11} {:>11} {:>7}\n", "size(B)", "raw med", "harness med", "ratio",
             "raw min", "harness min", "ratio");
  std::vector<double> ratios_median, ratios_min;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    const double raw_median = median(raw[s]);
    const double harness_median = median(harness[s]);
    const double raw_min = *std::min_element(raw[s].begin(), raw[s].end());
    const double harness_min = *std::min_element(harness[s].begin(), harness[s].end());
    ratios_median.push_back(harness_median / raw_median);
    ratios_min.push_back(harness_min / raw_min);
    fmt::print(" {:>11} {:>11.2f} {:>11.2f} {:>7.3f}  {:>11.2f} {:>11.2f} {:>7.3f}\n", sizes[s], raw_median,
               harness_median, ratios_median.back(), raw_min, harness_min, ratios_min.back());
  }
  const auto report = [](const char* name, const std::vector<double>& ratios) {
    fmt::print("# {}: median ratio {:.3f} (target <= 1.05), max ratio {:.3f} (target <= 1.15)\n", name,
               median(ratios), *std::max_element(ratios.begin(), ratios.end()));
  };
  report("of medians", ratios_median);
  report("of minima ", ratios_min);
  return 0;
}

}  // namespace
}  // namespace tpb

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int code = 0;
  try {
    code = tpb::run(argc, argv);
  } catch (const tpb::UsageError& error) {
    std::fprintf(stderr, "sweep_overhead_bench: %s\n", error.what());
    code = tpb::kExitUsage;
  } catch (const tpb::Error& error) {
    std::fprintf(stderr, "%s\n", error.one_line().c_str());
    MPI_Abort(MPI_COMM_WORLD, tpb::kExitRuntime);
  }
  MPI_Finalize();
  return code;
}
