#include "results/sweep_group.hpp"

namespace tpb {

void write_sweep_group(H5File& file, SweepRoot root, const SweepGroupRecord& tp,
                       const std::optional<SweepFits>& fits, const SweepParameters& parameters, std::string_view under) {
  const std::string path = sweep_group_path(root, tp.k, under);
  const auto n_sizes = static_cast<std::uint64_t>(tp.bytes.size());
  const auto iters = static_cast<std::uint64_t>(tp.iters);
  const auto ranks = static_cast<std::uint64_t>(tp.world_size);

  file.write_dataset(path + "/bytes", tp.bytes, {n_sizes});
  file.write_dataset(path + "/count", tp.counts, {n_sizes});
  file.write_dataset(path + "/time_us", tp.time_us, {n_sizes, iters, ranks});
  file.write_dataset(path + "/time_inplace_us", tp.time_inplace_us, {n_sizes, iters, ranks});
  file.write_dataset(path + "/time_median_us", tp.time_median_us, {n_sizes});
  file.write_dataset(path + "/time_inplace_median_us", tp.time_inplace_median_us, {n_sizes});
  file.write_dataset(path + "/algbw_GBps", tp.algbw_GBps, {n_sizes});
  file.write_dataset(path + "/busbw_GBps", tp.busbw_GBps, {n_sizes});
  file.write_dataset(path + "/algbw_inplace_GBps", tp.algbw_inplace_GBps, {n_sizes});
  file.write_dataset(path + "/busbw_inplace_GBps", tp.busbw_inplace_GBps, {n_sizes});
  file.write_dataset(path + "/wrong", tp.wrong, {n_sizes});
  file.write_dataset(path + "/wrong_inplace", tp.wrong_inplace, {n_sizes});
  file.write_dataset(path + "/wrong_per_rank", tp.wrong_per_rank, {n_sizes, ranks});
  file.write_dataset(path + "/wrong_inplace_per_rank", tp.wrong_inplace_per_rank, {n_sizes, ranks});
  file.write_dataset(path + "/slowest_group", tp.slowest_group, {n_sizes});
  file.write_dataset(path + "/slowest_group_inplace", tp.slowest_group_inplace, {n_sizes});

  H5Handle group = file.group(path);
  const hid_t id = group.id();
  write_attribute(id, "operation", tp.operation);
  write_attribute(id, collective_attribute::name, tp.collective);
  write_attribute(id, collective_attribute::memory, tp.collective_memory);
  write_attribute(id, "datatype", tp.datatype);
  write_attribute(id, "k", std::int64_t{tp.k});
  write_attribute(id, "n_groups", std::int64_t{tp.n_groups});
  write_attribute(id, "world_size", std::int64_t{tp.world_size});
  write_attribute(id, "iters", std::int64_t{tp.iters});
  write_attribute(id, "warmup_iters", std::int64_t{parameters.warmup_iters});
  write_attribute(id, "check_iters", std::int64_t{parameters.check_iters});
  write_attribute(id, "cudagraph_calls", std::int64_t{parameters.graph_calls});
  write_attribute(id, "blocking", std::int64_t{parameters.blocking ? 1 : 0});
  write_attribute(id, "timing", parameters.timing);
  write_attribute(id, "batch_calls", std::int64_t{parameters.batch_calls});
  write_attribute(id, "timing_overhead_us", tp.timing_overhead_us);
  write_attribute(id, "bus_factor", tp.bus_factor);
  write_attribute(id, "bandwidth_cliff_bytes", static_cast<std::int64_t>(parameters.bandwidth_cliff_bytes));
  write_attribute(id, "glibc_tunables", parameters.glibc_tunables);
  write_attribute(id, "time_definition",
                  std::string("per iteration the slowest rank of a group; time_median_us is the median over "
                              "iterations of the slowest group"));

  write_attribute(id, "fit_model", std::string("t(n) = alpha + n / beta, least squares weighted by 1/t^2"));
  if (!fits) {
    write_attribute(id, "fit_skipped", tp.fit_skipped);
    return;
  }
  write_attribute(id, "fit_alpha_us", fits->line.alpha_us);
  write_attribute(id, "fit_beta_GBps", fits->line.beta_GBps);
  write_attribute(id, "fit_r2", fits->line.r2);
  write_attribute(id, "fit_residual_us", fits->line.residual_us);

  std::vector<double> alpha, beta, r2, min_bytes, max_bytes;
  for (const PiecewiseSegment& segment : fits->piecewise.segments) {
    alpha.push_back(segment.fit.alpha_us);
    beta.push_back(segment.fit.beta_GBps);
    r2.push_back(segment.fit.r2);
    min_bytes.push_back(segment.min_bytes);
    max_bytes.push_back(segment.max_bytes);
  }
  write_attribute(id, "piecewise_alpha_us", alpha);
  write_attribute(id, "piecewise_beta_GBps", beta);
  write_attribute(id, "piecewise_r2", r2);
  write_attribute(id, "piecewise_min_bytes", min_bytes);
  write_attribute(id, "piecewise_max_bytes", max_bytes);
  write_attribute(id, "piecewise_breakpoints_bytes", fits->piecewise.breakpoints_bytes());
  write_attribute(id, "piecewise_total_r2", fits->piecewise.r2);
}

}  // namespace tpb
