#include "results/round_records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "common/error.hpp"
#include "predictor/statistics.hpp"
#include "results/stored_lists.hpp"

namespace tpb {
namespace {

// Per iteration, the slowest of columns [0, width) of one round's block
// (iterations × columns), then the median over iterations: the step of a
// group that waits for its slowest rank in every iteration.
double slowest_median(const std::vector<double>& values, int round, int iterations, int columns, int width) {
  std::vector<double> slowest;
  const std::size_t base = static_cast<std::size_t>(round) * iterations * columns;
  for (int i = 0; i < iterations; ++i) {
    const auto row = values.begin() + static_cast<std::ptrdiff_t>(base + static_cast<std::size_t>(i) * columns);
    slowest.push_back(*std::max_element(row, row + width));
  }
  return median(slowest);
}

// Per column of [0, width), the median over one round's iterations.
std::vector<double> per_column_medians(const std::vector<double>& values, int round, int iterations, int columns,
                                       int width) {
  std::vector<double> out;
  const std::size_t base = static_cast<std::size_t>(round) * iterations * columns;
  for (int c = 0; c < width; ++c) {
    std::vector<double> column;
    for (int i = 0; i < iterations; ++i) column.push_back(values[base + static_cast<std::size_t>(i) * columns + c]);
    out.push_back(median(column));
  }
  return out;
}

std::string condition_path(const RoundCondition& c, RoundsPhase phase = RoundsPhase::measure) {
  return round_condition_path(c.kind, c.k, c.batch, c.context, phase);
}

std::string dataset_path(const RoundCondition& c, const char* dataset, RoundsPhase phase = RoundsPhase::measure) {
  return condition_path(c, phase) + "/" + dataset;
}

// Whether condition `i` holds its collective times for every finished round.
bool collectives_measured(const RoundRecords& r, std::size_t i) {
  const std::size_t full = r.order.size() * static_cast<std::size_t>(r.iterations) * r.columns[i];
  return has_collective_samples(r.conditions[i]) && full > 0 && i < r.t_collective_us.size() &&
         r.t_collective_us[i].size() == full;
}

}  // namespace

std::vector<RoundCondition> round_conditions(const Grid& grid) {
  std::vector<RoundCondition> out;
  for (int k : grid.tp)
    for (int b : grid.batch)
      for (int c : grid.context) {
        out.push_back({RoundKind::step, k, b, c});
        if (k > 1) {
          out.push_back({RoundKind::step_nocomm, k, b, c});
          out.push_back({RoundKind::replay, k, b, c});
        }
      }
  // The A/A and the anchors of k = 1 also when the grid studies only k > 1.
  const bool grid_has_tp1 = std::find(grid.tp.begin(), grid.tp.end(), 1) != grid.tp.end();
  for (int b : grid.batch)
    for (int c : grid.context) {
      if (!grid_has_tp1) out.push_back({RoundKind::step, 1, b, c});
      out.push_back({RoundKind::step_nocomm, 1, b, c});
    }
  return out;
}

std::vector<RoundCondition> calibration_conditions(const Grid& grid, const std::vector<int>& predicted_tp) {
  std::set<int, std::greater<>> degrees(grid.tp.begin(), grid.tp.end());
  degrees.insert(predicted_tp.begin(), predicted_tp.end());
  std::vector<RoundCondition> out;
  for (int k : degrees)
    for (int b : grid.batch)
      for (int c : grid.context) out.push_back({RoundKind::replay, k, b, c});
  for (int b : grid.batch)
    for (int c : grid.context) out.push_back({RoundKind::step_nocomm, 1, b, c});
  return out;
}

bool is_replay_anchor(const RoundCondition& c) {
  return c.kind == RoundKind::replay || (c.kind == RoundKind::step_nocomm && c.k == 1);
}

bool has_collective_samples(const RoundCondition& c) { return c.kind == RoundKind::step && c.k > 1; }

std::string round_condition_name(const RoundCondition& condition) { return condition_path(condition); }

void write_round_records(H5File& file, const RoundRecords& r) {
  const auto rounds = static_cast<std::uint64_t>(r.order.size());
  const auto n = static_cast<std::uint64_t>(r.conditions.size());
  const RoundsPhase phase = r.phase;
  H5Handle group = file.group(rounds_group(phase));
  std::vector<std::string> names;
  for (const auto& c : r.conditions) names.push_back(condition_path(c, phase));
  write_attribute(group.id(), "conditions", names);
  write_attribute(group.id(), "order_seed", std::to_string(r.order_seed));  // uint64 kept exact as text
  write_attributes(group.id(), {{"rounds", static_cast<std::int64_t>(rounds)},
                                {"iterations", static_cast<std::int64_t>(r.iterations)},
                                {"stop_reason", r.stop_reason}, {"residency", r.residency}});
  if (!r.block_of.empty())
    file.write_dataset(fmt::format("{}/block_of_condition", rounds_group(phase)),
                       std::vector<std::int64_t>(r.block_of.begin(), r.block_of.end()), {n});
  std::vector<std::int64_t> order;
  for (const auto& round : r.order)
    for (std::size_t index : round) order.push_back(static_cast<std::int64_t>(index));
  file.write_dataset(rounds_order_path(phase), order, {rounds, n});
  const auto visits = static_cast<std::uint64_t>(r.visits.size());
  const auto write_visits = [&](const char* dataset, auto field) {
    file.write_dataset(visit_dataset_path(dataset, phase), member_column(r.visits, field), {visits});
  };
  write_visits(visit_dataset::condition, &VisitRecord::condition);
  write_visits(visit_dataset::round, &VisitRecord::round);
  write_visits(visit_dataset::execution_index, &VisitRecord::execution_index);
  write_visits(visit_dataset::start_unix_us, &VisitRecord::start_unix_us);
  write_visits(visit_dataset::duration_us, &VisitRecord::duration_us);
  write_visits(visit_dataset::steal_pct, &VisitRecord::steal_pct);
  write_visits(visit_dataset::load_avg_1m, &VisitRecord::load_avg_1m);
  for (std::size_t i = 0; i < r.conditions.size(); ++i) {
    const RoundCondition& c = r.conditions[i];
    const std::vector<std::uint64_t> dims{rounds, static_cast<std::uint64_t>(r.iterations),
                                          static_cast<std::uint64_t>(r.columns[i])};
    file.write_dataset(dataset_path(c, round_dataset::t_rank_us, phase), r.t_rank_us[i], dims);
    if (is_replay_anchor(c)) file.write_dataset(dataset_path(c, round_dataset::t_host_us, phase), r.t_host_us[i], dims);
    if (collectives_measured(r, i))
      file.write_dataset(dataset_path(c, round_dataset::t_collective_insitu_us, phase), r.t_collective_us[i], dims);
  }
}

bool has_rounds(const H5File& file) { return file.exists(kRoundsOrder); }

std::string read_rounds_stop_reason(const H5File& file) {
  H5Handle group = file.open_object(kRoundsGroup);
  return read_string_attribute(group.id(), "stop_reason");
}

std::vector<std::vector<std::size_t>> read_round_order(const H5File& file) {
  std::vector<std::uint64_t> dims;
  const std::vector<std::int64_t> flat = file.read_integers(kRoundsOrder, &dims);
  std::vector<std::vector<std::size_t>> order(dims.at(0));
  for (std::size_t r = 0; r < dims[0]; ++r)
    for (std::size_t i = 0; i < dims[1]; ++i) order[r].push_back(static_cast<std::size_t>(flat[r * dims[1] + i]));
  return order;
}

std::vector<std::string> read_round_condition_names(const H5File& file) {
  H5Handle group = file.open_object(kRoundsGroup);
  return read_string_list_attribute(group.id(), "conditions");
}

std::vector<RoundObservation> round_observations(const RoundRecords& r) {
  std::vector<RoundObservation> out(r.order.size());
  for (std::size_t round = 0; round < out.size(); ++round) {
    RoundObservation& o = out[round];
    const int rr = static_cast<int>(round);
    for (std::size_t i = 0; i < r.conditions.size(); ++i) {
      const RoundCondition& c = r.conditions[i];
      const int columns = r.columns[i];
      const DegreeCell cell{c.k, c.batch, c.context};
      const GridCell grid_cell{c.batch, c.context};
      const auto per_rank = [&](const std::vector<double>& values) {
        return per_column_medians(values, rr, r.iterations, columns, columns);
      };
      switch (c.kind) {
        case RoundKind::step:
          o.step_us[cell] = slowest_median(r.t_rank_us[i], rr, r.iterations, columns, std::min(c.k, columns));
          if (c.k == 1) o.step1_rank_us[grid_cell] = per_rank(r.t_rank_us[i]);
          if (collectives_measured(r, i))  // group 0's ranks: the ones that waited for each other
            o.rank_collective_us[cell] =
                per_column_medians(r.t_collective_us[i], rr, r.iterations, columns, std::min(c.k, columns));
          break;
        case RoundKind::step_nocomm:
          (c.k == 1 ? o.compute1_rank_us[grid_cell] : o.nocomm_rank_us[cell]) = per_rank(r.t_rank_us[i]);
          break;
        case RoundKind::replay: o.replay_rank_us[cell] = per_rank(r.t_rank_us[i]); break;
      }
      if (is_replay_anchor(c)) o.host_rank_us[cell] = per_rank(r.t_host_us[i]);
    }
  }
  return out;
}

std::vector<RoundObservation> read_round_observations(const H5File& file, const Grid& grid) {
  if (!has_rounds(file))
    throw UsageError(fmt::format("FILE: '{}' holds no measurement rounds (/rounds)", file.path()));
  const std::vector<std::string> names = read_round_condition_names(file);
  RoundRecords r;
  r.conditions = round_conditions(grid);
  std::vector<std::string> expected;
  for (const auto& c : r.conditions) expected.push_back(condition_path(c));
  if (expected != names)
    throw UsageError(
        fmt::format("FILE: /rounds in '{}' does not hold the conditions of the registered grid", file.path()));
  r.order = read_round_order(file);
  for (const auto& c : r.conditions) {
    std::vector<std::uint64_t> dims;
    const std::string path = dataset_path(c, round_dataset::t_rank_us);
    r.t_rank_us.push_back(file.read_doubles(path, &dims));
    if (dims.size() != 3 || dims[0] != r.order.size())
      throw UsageError(fmt::format("FILE: {} is not rounds × iterations × ranks", path));
    r.iterations = static_cast<int>(dims[1]);
    r.columns.push_back(static_cast<int>(dims[2]));
    std::vector<std::uint64_t> host_dims;
    r.t_host_us.push_back(is_replay_anchor(c) ? file.read_doubles(dataset_path(c, round_dataset::t_host_us), &host_dims)
                                              : std::vector<double>{});
    if (is_replay_anchor(c) && host_dims != dims)
      throw UsageError(fmt::format("FILE: {} is not shaped as its t_rank_us", dataset_path(c, round_dataset::t_host_us)));
    const std::string collective = dataset_path(c, round_dataset::t_collective_insitu_us);
    std::vector<std::uint64_t> collective_dims;
    r.t_collective_us.push_back(has_collective_samples(c) && file.exists(collective)
                                    ? file.read_doubles(collective, &collective_dims)
                                    : std::vector<double>{});
    if (!r.t_collective_us.back().empty() && collective_dims != dims)
      throw UsageError(fmt::format("FILE: {} is not shaped as its t_rank_us", collective));
  }
  return round_observations(r);
}

}  // namespace tpb
