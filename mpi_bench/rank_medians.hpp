#pragma once
// The console summary of a per-rank bandwidth measurement (membw, d2d): one
// row per rank with a label (its threads, its device) and the median of its
// passes, read off the gathered iterations × ranks matrix on rank 0.
#include <functional>
#include <string>
#include <vector>

namespace tpb {

struct RankMedianTable {
  std::string label_header;                  // "threads", "device"
  std::function<std::string(int)> label;     // the rank's label
  int label_width = 8;
  std::string value_header;                  // "read_GBps", "copy_GBps"
  int value_width = 14;
  int value_precision = 2;
};

// Prints the table; returns each rank's median (rank order). `matrix` is
// iterations × `ranks`, row-major.
std::vector<double> print_rank_medians(const RankMedianTable& table, const std::vector<double>& matrix, int ranks);

}  // namespace tpb
