#include "mpi_bench/sweep_output.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>

namespace tpb {
namespace {

template <typename Integer>
std::vector<std::int64_t> as_int64(const std::vector<Integer>& values) {
  return {values.begin(), values.end()};
}

std::vector<double> column(const std::vector<PointSummary>& summaries, double PointSummary::*field) {
  std::vector<double> values;
  for (const PointSummary& summary : summaries) values.push_back(summary.*field);
  return values;
}

// Where a collective's sweeps are stored.
SweepRoot sweep_root_of(const CollectiveSpec& spec) {
  return &spec == &all_gather_spec() ? SweepRoot::all_gather : SweepRoot::all_reduce;
}

}  // namespace

std::optional<SweepFits> fit_sweep(const TpSweep& tp) {
  if (tp.bytes.size() < 2) return std::nullopt;
  const std::vector<double> bytes(tp.bytes.begin(), tp.bytes.end());
  const std::vector<double> time_us = tp.median_times_us();
  return SweepFits{fit_latency_bandwidth(bytes, time_us), fit_piecewise(bytes, time_us)};
}

std::string fit_skipped_reason(const TpSweep& tp) {
  return fmt::format("one message size ({} B): a latency-bandwidth fit needs at least two", tp.bytes.front());
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
  SweepGroupRecord r;
  r.operation = tp.operation;
  r.collective = tp.backend;
  r.collective_memory = std::string(to_string(tp.memory));
  r.datatype = to_string(tp.type);
  r.k = tp.k;
  r.n_groups = tp.n_groups;
  r.world_size = tp.world_size;
  r.iters = tp.iters;
  r.bus_factor = tp.bus_factor;
  r.timing_overhead_us = tp.timing_overhead_us;
  r.bytes = as_int64(tp.bytes);
  r.counts = as_int64(tp.counts);
  r.time_us = tp.time_us;
  r.time_inplace_us = tp.time_inplace_us;
  r.time_median_us = column(tp.out_of_place, &PointSummary::time_us);
  r.time_inplace_median_us = column(tp.in_place, &PointSummary::time_us);
  r.algbw_GBps = column(tp.out_of_place, &PointSummary::algbw_GBps);
  r.busbw_GBps = column(tp.out_of_place, &PointSummary::busbw_GBps);
  r.algbw_inplace_GBps = column(tp.in_place, &PointSummary::algbw_GBps);
  r.busbw_inplace_GBps = column(tp.in_place, &PointSummary::busbw_GBps);
  r.wrong = tp.wrong;
  r.wrong_inplace = tp.wrong_inplace;
  r.wrong_per_rank = tp.wrong_per_rank;
  r.wrong_inplace_per_rank = tp.wrong_inplace_per_rank;
  r.slowest_group = as_int64(tp.slowest_group);
  r.slowest_group_inplace = as_int64(tp.slowest_group_inplace);
  if (!fits) r.fit_skipped = fit_skipped_reason(tp);
  write_sweep_group(file, sweep_root_of(*tp.spec), r, fits, parameters, under);
}

}  // namespace tpb
