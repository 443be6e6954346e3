#include "mpi_bench/sweep_output.hpp"

#include <cstdlib>

#include "results/stored_lists.hpp"

namespace tpb {

std::optional<SweepFits> fit_sweep(const TpSweep& tp) {
  if (tp.bytes.size() < 2) return std::nullopt;
  const std::vector<double> bytes(tp.bytes.begin(), tp.bytes.end());
  const std::vector<double> time_us = member_column(tp.out_of_place, &PointSummary::time_us);
  return SweepFits{fit_latency_bandwidth(bytes, time_us), fit_piecewise(bytes, time_us)};
}

std::string glibc_tunables() {
  const char* value = std::getenv("GLIBC_TUNABLES");
  return value != nullptr ? value : "(unset)";
}

SweepParameters sweep_parameters(const SweepOptions& options) {
  return {.warmup_iters = options.warmup_iters,
          .check_iters = options.check_iters,
          .graph_calls = options.graph_calls,
          .blocking = options.blocking,
          .timing = to_string(options.timing),
          .batch_calls = options.timing == SweepTiming::batch ? options.batch_calls : 0,
          .glibc_tunables = glibc_tunables()};
}

void write_tp_sweep(H5File& file, const TpSweep& tp, const std::optional<SweepFits>& fits,
                    const SweepParameters& parameters, std::string_view under) {
  // Where a collective's sweeps are stored.
  const SweepRoot root = tp.operation == all_gather_spec().name ? SweepRoot::all_gather : SweepRoot::all_reduce;
  write_sweep_group(file, root, tp, fits, parameters, under);
}

}  // namespace tpb
