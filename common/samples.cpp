#include "common/samples.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"

namespace tpb {
namespace {

void require_rows(std::span<const double> values, std::size_t ranks) {
  TPB_CHECK(ranks > 0 && values.size() % ranks == 0,
            fmt::format("{} values do not form rows of {} ranks", values.size(), ranks));
}

}  // namespace

double median(std::span<const double> sample) {
  TPB_CHECK(!sample.empty(), "median of an empty sample");
  std::vector<double> sorted(sample.begin(), sample.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t middle = sorted.size() / 2;
  if (sorted.size() % 2 == 1) return sorted[middle];
  // numpy's linear interpolation at q = 0.5, so h5py users get the same number.
  return sorted[middle - 1] + 0.5 * (sorted[middle] - sorted[middle - 1]);
}

std::vector<double> slowest_rank_of_each_group(std::span<const double> values, std::size_t ranks,
                                               std::size_t group_size) {
  require_rows(values, ranks);
  TPB_CHECK(group_size > 0 && ranks % group_size == 0,
            fmt::format("{} ranks do not split into groups of {}", ranks, group_size));
  std::vector<double> slowest;
  slowest.reserve(values.size() / group_size);
  for (std::size_t first = 0; first < values.size(); first += group_size) {
    const auto group = values.subspan(first, group_size);
    slowest.push_back(*std::max_element(group.begin(), group.end()));
  }
  return slowest;
}

// The whole row is one group.
std::vector<double> slowest_rank_per_iteration(std::span<const double> values, std::size_t ranks) {
  return slowest_rank_of_each_group(values, ranks, ranks);
}

std::vector<double> select_columns(std::span<const double> values, std::size_t ranks, std::size_t first,
                                   std::size_t count) {
  require_rows(values, ranks);
  TPB_CHECK(first + count <= ranks, fmt::format("columns {}..{} outside {} ranks", first, first + count, ranks));
  std::vector<double> out;
  out.reserve(values.size() / ranks * count);
  for (std::size_t row = 0; row < values.size(); row += ranks)
    out.insert(out.end(), values.begin() + static_cast<std::ptrdiff_t>(row + first),
               values.begin() + static_cast<std::ptrdiff_t>(row + first + count));
  return out;
}

}  // namespace tpb
