#pragma once
// Reductions of per-iteration timing samples, shared by every module that
// reports a time: one median, and the slowest rank per iteration (a step or a
// collective is as slow as its slowest rank). Samples are iterations × ranks,
// row-major, as gathered and as stored.
#include <cstddef>
#include <span>
#include <vector>

namespace tpb {

// Median of a non-empty sample (the mean of the two middle values when even).
double median(std::span<const double> sample);

// Per iteration, the slowest of all `ranks` columns.
std::vector<double> slowest_rank_per_iteration(std::span<const double> values, std::size_t ranks);

// Per iteration and group of `group_size` consecutive columns, the group's
// slowest rank: iterations × (ranks / group_size).
std::vector<double> slowest_rank_of_each_group(std::span<const double> values, std::size_t ranks,
                                               std::size_t group_size);

// The columns [first, first + count) of an iterations × ranks matrix.
std::vector<double> select_columns(std::span<const double> values, std::size_t ranks, std::size_t first,
                                   std::size_t count);

// Rank-major samples (rank r's `count` values at [r * count, (r + 1) * count))
// reordered to iterations × ranks.
template <typename T>
std::vector<T> rank_major_to_iterations(const std::vector<T>& by_rank, std::size_t ranks) {
  const std::size_t count = ranks == 0 ? 0 : by_rank.size() / ranks;
  std::vector<T> by_iteration(by_rank.size());
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::size_t i = 0; i < count; ++i) by_iteration[i * ranks + r] = by_rank[r * count + i];
  return by_iteration;
}

}  // namespace tpb
