#pragma once
// One row per (TP degree, size), in nccl-tests' columns. The printed table,
// --csv and --json all read the sweeps' own records, so they cannot disagree.
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/tp_sweep.hpp"

namespace tpb {

// nccl-tests-style column header (three '#' lines) and the line of size
// index `s` of `tp`.
std::string table_header();
std::string table_line(const TpSweep& tp, std::size_t s);

// Every column of every size of every sweep, including the rank spread;
// overwrite the file. tpb::Error when the file cannot be written.
void write_rows_csv(const std::string& path, const std::vector<TpSweep>& sweeps);
void write_rows_json(const std::string& path, const std::vector<TpSweep>& sweeps);

}  // namespace tpb
