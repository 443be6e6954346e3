#pragma once
// One row per (TP degree, size), in nccl-tests' columns. The printed table,
// --csv and --json all come from this struct, so they cannot disagree.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/tp_sweep.hpp"

namespace tpb {

struct SweepRow {
  std::string operation;
  int k = 1;
  int n_groups = 1;
  std::size_t bytes = 0;  // size(B)
  std::size_t count = 0;  // elements each rank sends
  std::string type;
  PointSummary out_of_place;
  std::int64_t wrong = 0;
  int slowest_group = 0;
  PointSummary in_place;
  std::int64_t wrong_inplace = 0;
  int slowest_group_inplace = 0;
};

std::vector<SweepRow> sweep_rows(const TpSweep& tp);

// nccl-tests-style column header (three '#' lines) and one line per row.
std::string table_header();
std::string table_line(const SweepRow& row);

// Every column of every row, including the rank spread; overwrite the file.
// tpb::Error when the file cannot be written.
void write_rows_csv(const std::string& path, const std::vector<SweepRow>& rows);
void write_rows_json(const std::string& path, const std::vector<SweepRow>& rows);

}  // namespace tpb
