#include "mpi_bench/rank_medians.hpp"

#include <fmt/format.h>

#include "common/samples.hpp"

namespace tpb {

std::vector<double> print_rank_medians(const RankMedianTable& t, const std::vector<double>& matrix, int ranks) {
  fmt::print("# {:>5} {:>{}} {:>{}}\n", "rank", t.label_header, t.label_width, t.value_header, t.value_width);
  std::vector<double> medians;
  for (int r = 0; r < ranks; ++r) {
    medians.push_back(median(select_columns(matrix, static_cast<std::size_t>(ranks), static_cast<std::size_t>(r), 1)));
    fmt::print("  {:>5} {:>{}} {:>{}.{}f}\n", r, t.label(r), t.label_width, medians.back(), t.value_width,
               t.value_precision);
  }
  return medians;
}

}  // namespace tpb
