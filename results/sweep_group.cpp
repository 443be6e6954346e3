#include "results/sweep_group.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "results/stored_lists.hpp"

namespace tpb {
namespace {

template <typename Integer>
std::vector<std::int64_t> as_int64(const std::vector<Integer>& values) {
  return {values.begin(), values.end()};
}

}  // namespace

std::string fit_skipped_reason(const TpSweep& tp) {
  return fmt::format("one message size ({} B): a latency-bandwidth fit needs at least two", tp.bytes.front());
}

void write_sweep_group(H5File& file, SweepRoot root, const TpSweep& tp,
                       const std::optional<SweepFits>& fits, const SweepParameters& parameters, std::string_view under) {
  const std::string path = sweep_group_path(root, tp.k, under);
  const auto n_sizes = static_cast<std::uint64_t>(tp.bytes.size());
  const auto iters = static_cast<std::uint64_t>(tp.iters);
  const auto ranks = static_cast<std::uint64_t>(tp.world_size);

  file.write_dataset(path + "/bytes", as_int64(tp.bytes), {n_sizes});
  file.write_dataset(path + "/count", as_int64(tp.counts), {n_sizes});
  file.write_dataset(path + "/time_us", tp.time_us, {n_sizes, iters, ranks});
  file.write_dataset(path + "/time_inplace_us", tp.time_inplace_us, {n_sizes, iters, ranks});
  file.write_dataset(path + "/time_median_us", member_column(tp.out_of_place, &PointSummary::time_us), {n_sizes});
  file.write_dataset(path + "/time_inplace_median_us", member_column(tp.in_place, &PointSummary::time_us), {n_sizes});
  file.write_dataset(path + "/algbw_GBps", member_column(tp.out_of_place, &PointSummary::algbw_GBps), {n_sizes});
  file.write_dataset(path + "/busbw_GBps", member_column(tp.out_of_place, &PointSummary::busbw_GBps), {n_sizes});
  file.write_dataset(path + "/algbw_inplace_GBps", member_column(tp.in_place, &PointSummary::algbw_GBps), {n_sizes});
  file.write_dataset(path + "/busbw_inplace_GBps", member_column(tp.in_place, &PointSummary::busbw_GBps), {n_sizes});
  file.write_dataset(path + "/wrong", tp.wrong, {n_sizes});
  file.write_dataset(path + "/wrong_inplace", tp.wrong_inplace, {n_sizes});
  file.write_dataset(path + "/wrong_per_rank", tp.wrong_per_rank, {n_sizes, ranks});
  file.write_dataset(path + "/wrong_inplace_per_rank", tp.wrong_inplace_per_rank, {n_sizes, ranks});
  file.write_dataset(path + "/slowest_group", as_int64(tp.slowest_group), {n_sizes});
  file.write_dataset(path + "/slowest_group_inplace", as_int64(tp.slowest_group_inplace), {n_sizes});

  H5Handle group = file.group(path);
  const hid_t id = group.id();
  write_attributes(id, {{"operation", tp.operation}, {collective_attribute::name, tp.backend},
                        {collective_attribute::memory, tp.memory}, {"datatype", tp.datatype}, {"k", tp.k},
                        {"n_groups", tp.n_groups}, {"world_size", tp.world_size}, {"iters", tp.iters},
                        {"warmup_iters", parameters.warmup_iters}, {"check_iters", parameters.check_iters},
                        {"cudagraph_calls", parameters.graph_calls}, {"blocking", parameters.blocking},
                        {"timing", parameters.timing}, {"batch_calls", parameters.batch_calls},
                        {"timing_overhead_us", tp.timing_overhead_us}, {"bus_factor", tp.bus_factor},
                        {"bandwidth_cliff_bytes", static_cast<std::int64_t>(parameters.bandwidth_cliff_bytes)},
                        {"glibc_tunables", parameters.glibc_tunables},
                        {"time_definition", "per iteration the slowest rank of a group; time_median_us is the median "
                                            "over iterations of the slowest group"},
                        {"fit_model", "t(n) = alpha + n / beta, least squares weighted by 1/t^2"}});
  if (!fits) {
    write_attribute(id, "fit_skipped", fit_skipped_reason(tp));
    return;
  }
  write_attributes(id, {{"fit_alpha_us", fits->line.alpha_us}, {"fit_beta_GBps", fits->line.beta_GBps},
                        {"fit_r2", fits->line.r2}, {"fit_residual_us", fits->line.residual_us}});

  std::vector<double> alpha, beta, r2, min_bytes, max_bytes;
  for (const PiecewiseSegment& segment : fits->piecewise.segments) {
    alpha.push_back(segment.fit.alpha_us);
    beta.push_back(segment.fit.beta_GBps);
    r2.push_back(segment.fit.r2);
    min_bytes.push_back(segment.min_bytes);
    max_bytes.push_back(segment.max_bytes);
  }
  write_attributes(id, {{"piecewise_alpha_us", alpha}, {"piecewise_beta_GBps", beta}, {"piecewise_r2", r2},
                        {"piecewise_min_bytes", min_bytes}, {"piecewise_max_bytes", max_bytes},
                        {"piecewise_breakpoints_bytes", fits->piecewise.breakpoints_bytes()},
                        {"piecewise_total_r2", fits->piecewise.r2}});
}

}  // namespace tpb
