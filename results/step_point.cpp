#include "results/step_point.hpp"

#include <fmt/format.h>

#include <string_view>

#include "common/error.hpp"
#include "common/samples.hpp"
#include "predictor/statistics.hpp"
#include "results/layout.hpp"

namespace tpb {
namespace {

// Group 0's columns of an iterations × ranks dataset: those whose tp_group is
// 0, or every column when the point has no tp_group (schema 1 study points
// held group 0 alone). t_step_us, where tp_group exists, is one column per
// group (schema 3) or per rank holding its group's slowest (schema 2): either
// way column 0 is group 0's slowest rank.
std::vector<double> group0_columns(const H5File& file, const std::string& point_path, const char* dataset,
                                   std::uint64_t* columns) {
  const std::string path = step_dataset_path(point_path, dataset);
  std::vector<std::uint64_t> dims;
  const std::vector<double> values = file.read_doubles(path, &dims);
  TPB_CHECK(dims.size() == 2, fmt::format("{}: expected iterations × columns, found {} dimensions", path, dims.size()));
  const std::string groups_path = step_dataset_path(point_path, step_dataset::tp_group);
  std::uint64_t count = dims[1];
  if (file.exists(groups_path)) {
    if (std::string_view(dataset) == step_dataset::t_step_us) {
      count = 1;
    } else {
      const std::vector<std::int64_t> groups = file.read_integers(groups_path);
      count = 0;
      while (count < groups.size() && groups[count] == 0) ++count;  // groups are consecutive ranks
    }
  }
  *columns = count;
  return select_columns(values, dims[1], 0, count);
}

// The t_step_us columns (first, count) of the groups held by rank columns
// [first, first + count). Groups are consecutive ranks, so a group's column is
// its tp_group less the record's first one.
std::pair<int, int> groups_of_columns(const StepPointRecord& r, int first, int count) {
  const auto at = [&](int column) { return r.tp_group.at(static_cast<std::size_t>(column)); };
  TPB_CHECK(count > 0 && first >= 0 && first + count <= r.ranks,
            fmt::format("columns {}..{} outside {} ranks", first, first + count, r.ranks));
  const bool starts_a_group = first == 0 || at(first - 1) != at(first);
  const bool ends_a_group = first + count == r.ranks || at(first + count) != at(first + count - 1);
  TPB_CHECK(starts_a_group && ends_a_group, fmt::format("columns {}..{} split a TP group", first, first + count));
  return {static_cast<int>(at(first) - at(0)), static_cast<int>(at(first + count - 1) - at(first) + 1)};
}

void write_matrix(H5File& file, const std::string& path, const std::vector<double>& values, int iters, int columns) {
  if (values.empty()) return;
  TPB_CHECK(values.size() == static_cast<std::size_t>(iters) * static_cast<std::size_t>(columns),
            fmt::format("{}: {} values do not form {} iterations × {} columns", path, values.size(), iters, columns));
  file.write_dataset(path, values, {static_cast<std::uint64_t>(iters), static_cast<std::uint64_t>(columns)});
}

}  // namespace

StepPointRecord record_columns(const StepPointRecord& r, int first, int count) {
  StepPointRecord out;
  out.iters = r.iters;
  out.ranks = count;
  const auto columns = [&](const std::vector<double>& m) {
    return m.empty() ? m
                     : select_columns(m, static_cast<std::size_t>(r.ranks), static_cast<std::size_t>(first),
                                      static_cast<std::size_t>(count));
  };
  const auto [first_group, group_count] = groups_of_columns(r, first, count);
  out.groups = group_count;
  out.t_step_us = r.t_step_us.empty() ? r.t_step_us
                                      : select_columns(r.t_step_us, static_cast<std::size_t>(r.groups),
                                                       static_cast<std::size_t>(first_group),
                                                       static_cast<std::size_t>(group_count));
  out.t_rank_us = columns(r.t_rank_us);
  out.t_host_us = columns(r.t_host_us);
  out.t_ar_insitu_us = columns(r.t_ar_insitu_us);
  out.t_ag_insitu_us = columns(r.t_ag_insitu_us);
  for (const auto& [name, matrix] : r.phase_us) out.phase_us.emplace_back(name, columns(matrix));
  out.tp_group.assign(r.tp_group.begin() + first, r.tp_group.begin() + first + count);
  return out;
}

void append_iterations(StepPointRecord& into, const StepPointRecord& more) {
  if (into.iters == 0) {
    into = more;
    return;
  }
  TPB_CHECK(into.ranks == more.ranks && into.groups == more.groups && into.tp_group == more.tp_group &&
                into.phase_us.size() == more.phase_us.size(),
            fmt::format("appending a point of {} ranks in {} groups to one of {} ranks in {} groups", more.ranks,
                        more.groups, into.ranks, into.groups));
  const auto append = [](std::vector<double>& to, const std::vector<double>& from, const char* term) {
    TPB_CHECK(to.empty() == from.empty(), fmt::format("appending a point: {} measured in only one of them", term));
    to.insert(to.end(), from.begin(), from.end());
  };
  append(into.t_step_us, more.t_step_us, "t_step_us");
  append(into.t_rank_us, more.t_rank_us, "t_rank_us");
  append(into.t_host_us, more.t_host_us, "t_host_us");
  append(into.t_ar_insitu_us, more.t_ar_insitu_us, "t_ar_insitu_us");
  append(into.t_ag_insitu_us, more.t_ag_insitu_us, "t_ag_insitu_us");
  for (std::size_t i = 0; i < into.phase_us.size(); ++i) {
    TPB_CHECK(into.phase_us[i].first == more.phase_us[i].first,
              fmt::format("appending a point: phase {} where {} was", more.phase_us[i].first, into.phase_us[i].first));
    append(into.phase_us[i].second, more.phase_us[i].second, "a phase");
  }
  into.iters += more.iters;
}

void write_step_point(H5File& file, const std::string& path, const StepPointRecord& record,
                      const StepPointAttributes& a) {
  const int iters = record.iters;
  const int ranks = record.ranks;
  namespace d = step_dataset;
  TPB_CHECK(record.tp_group.size() == static_cast<std::size_t>(ranks),
            fmt::format("{}: {} tp_group entries for {} ranks", path, record.tp_group.size(), ranks));
  write_matrix(file, step_dataset_path(path, d::t_step_us), record.t_step_us, iters, record.groups);
  write_matrix(file, step_dataset_path(path, d::t_rank_us), record.t_rank_us, iters, ranks);
  write_matrix(file, step_dataset_path(path, d::t_host_us), record.t_host_us, iters, ranks);
  write_matrix(file, step_dataset_path(path, d::t_ar_insitu_us), record.t_ar_insitu_us, iters, ranks);
  write_matrix(file, step_dataset_path(path, d::t_ag_insitu_us), record.t_ag_insitu_us, iters, ranks);
  for (const auto& [name, matrix] : record.phase_us)
    write_matrix(file, phase_dataset_path(path, name), matrix, iters, ranks);
  file.write_dataset(step_dataset_path(path, d::tp_group), record.tp_group,
                     {static_cast<std::uint64_t>(record.tp_group.size())});
  if (!a.experts_touched.empty())
    file.write_dataset(step_dataset_path(path, d::experts_touched), a.experts_touched,
                       {static_cast<std::uint64_t>(a.layers), static_cast<std::uint64_t>(a.experts_per_layer)});

  H5Handle group = file.group(path);
  const hid_t g = group.id();
  write_attributes(g, {{"tp", a.tp}, {"batch", a.batch}, {"context", a.context}, {"layers", a.layers},
                       {"layers_in_file", a.layers_in_file}, {"model", a.model}, {"backend", a.backend}});
  if (!a.collective.empty())
    write_attributes(g, {{collective_attribute::name, a.collective},
                         {collective_attribute::memory, a.collective_memory}});
  write_attributes(g, {{"device", a.device}, {"dtype", a.dtype}, {"activation_dtype", a.activation_dtype},
                       {"ar_bytes", a.ar_bytes}, {"n_ar", a.n_ar}, {"no_comm", a.no_comm}, {"graph", a.graph},
                       {"profile", a.profile}, {"timers", a.timers}, {"warmup", a.warmup}, {"iters", a.iters},
                       {"seed", a.seed}, {"weight_bytes_per_step", a.weight_bytes_per_step}});
  if (a.collectives_profiled_separately) write_attribute(g, "collectives_profiled_separately", std::int64_t{1});
  if (a.no_comm && a.tp > 1)
    write_attribute(g, "numerics", std::string("wrong by design: collectives skipped (--no-comm)"));
  if (a.membw_read_GBps) write_attribute(g, "membw_read_GBps", *a.membw_read_GBps);
  if (const std::optional<StepPointCheck>& c = a.check)
    write_attributes(g, {{"check_compared_with_tp1", c->compared_with_tp1},
                         {"check_max_abs_logit_diff", c->max_abs_logit_diff}, {"check_max_abs_logit", c->max_abs_logit},
                         {"check_tolerance", c->tolerance}, {"check_tolerance_reason", c->tolerance_reason},
                         {"check_passed", c->passed}});
}

void write_control_t_rank(H5File& file, ControlMode mode, int batch, int context, const std::vector<double>& t_rank_us,
                          int iters, int ranks) {
  write_matrix(file, control_t_rank_path(mode, batch, context), t_rank_us, iters, ranks);
}

std::vector<double> group0_slowest_per_iteration(const H5File& file, const std::string& point_path,
                                                 const char* dataset) {
  std::uint64_t columns = 0;
  const std::vector<double> values = group0_columns(file, point_path, dataset, &columns);
  return slowest_rank_per_iteration(values, columns);
}

std::optional<double> collective_median_us(const H5File& file, const std::string& point_path) {
  std::uint64_t columns = 0;
  std::vector<double> total;
  for (const char* name : {step_dataset::t_ar_insitu_us, step_dataset::t_ag_insitu_us}) {
    if (!file.exists(step_dataset_path(point_path, name))) continue;
    const std::vector<double> values = group0_columns(file, point_path, name, &columns);
    if (total.empty()) total.assign(values.size(), 0.0);
    for (std::size_t i = 0; i < values.size(); ++i) total[i] += values[i];
  }
  if (total.empty()) return std::nullopt;  // not measured: absent, never 0
  return median(slowest_rank_per_iteration(total, columns));
}

}  // namespace tpb
