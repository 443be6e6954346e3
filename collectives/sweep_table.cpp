#include "collectives/sweep_table.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "common/error.hpp"

namespace tpb {
namespace {

std::ofstream open_for_writing(const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  TPB_CHECK(out.good(), fmt::format("cannot write '{}'", path));
  return out;
}

nlohmann::json summary_json(const PointSummary& s, std::int64_t wrong, int slowest_group) {
  return {{"time_us", s.time_us},         {"rank_min_us", s.rank_min_us}, {"rank_avg_us", s.rank_avg_us},
          {"rank_max_us", s.rank_max_us}, {"algbw_GBps", s.algbw_GBps},   {"busbw_GBps", s.busbw_GBps},
          {"wrong", wrong},               {"slowest_group", slowest_group}};
}

}  // namespace

std::vector<SweepRow> sweep_rows(const TpSweep& tp) {
  std::vector<SweepRow> rows;
  for (std::size_t s = 0; s < tp.bytes.size(); ++s) {
    SweepRow row;
    row.operation = tp.operation;
    row.k = tp.k;
    row.n_groups = tp.n_groups;
    row.bytes = tp.bytes[s];
    row.count = tp.counts[s];
    row.type = to_string(tp.type);
    row.out_of_place = tp.out_of_place[s];
    row.wrong = tp.wrong[s];
    row.slowest_group = tp.slowest_group[s];
    row.in_place = tp.in_place[s];
    row.wrong_inplace = tp.wrong_inplace[s];
    row.slowest_group_inplace = tp.slowest_group_inplace[s];
    rows.push_back(row);
  }
  return rows;
}

std::string table_header() {
  return fmt::format(
      "#{:>51}{:>40}{:>24}\n"
      "#{:>12} {:>12} {:>8}  {:>9} {:>8} {:>8} {:>6}  {:>9} {:>8} {:>8} {:>6}  {:>23}\n"
      "#{:>12} {:>12} {:>8}  {:>9} {:>8} {:>8} {:>6}  {:>9} {:>8} {:>8} {:>6}  {:>23}\n",
      "out-of-place", "in-place", "out-of-place ranks",  //
      "size", "count", "type", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong",
      "min/avg/max",  //
      "(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)");
}

std::string table_line(const SweepRow& row) {
  const PointSummary& o = row.out_of_place;
  const PointSummary& i = row.in_place;
  return fmt::format(
      " {:>12} {:>12} {:>8}  {:>9.2f} {:>8.2f} {:>8.2f} {:>6}  {:>9.2f} {:>8.2f} {:>8.2f} {:>6}  {:>23}\n", row.bytes,
      row.count, row.type, o.time_us, o.algbw_GBps, o.busbw_GBps, row.wrong, i.time_us, i.algbw_GBps, i.busbw_GBps,
      row.wrong_inplace, fmt::format("{:.1f}/{:.1f}/{:.1f}", o.rank_min_us, o.rank_avg_us, o.rank_max_us));
}

void write_rows_csv(const std::string& path, const std::vector<SweepRow>& rows) {
  std::ofstream out = open_for_writing(path);
  out << "operation,k,n_groups,bytes,count,type";
  for (const char* placement : {"", "_inplace"})
    for (const char* column : {"time_us", "rank_min_us", "rank_avg_us", "rank_max_us", "algbw_GBps", "busbw_GBps",
                               "wrong", "slowest_group"})
      out << ',' << column << placement;
  out << '\n';
  for (const SweepRow& row : rows) {
    out << fmt::format("{},{},{},{},{},{}", row.operation, row.k, row.n_groups, row.bytes, row.count, row.type);
    const auto placement = [&](const PointSummary& s, std::int64_t wrong, int slowest) {
      out << fmt::format(",{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{}", s.time_us, s.rank_min_us, s.rank_avg_us,
                         s.rank_max_us, s.algbw_GBps, s.busbw_GBps, wrong, slowest);
    };
    placement(row.out_of_place, row.wrong, row.slowest_group);
    placement(row.in_place, row.wrong_inplace, row.slowest_group_inplace);
    out << '\n';
  }
  TPB_CHECK(out.good(), fmt::format("writing '{}' failed", path));
}

void write_rows_json(const std::string& path, const std::vector<SweepRow>& rows) {
  nlohmann::json array = nlohmann::json::array();
  for (const SweepRow& row : rows)
    array.push_back({{"operation", row.operation},
                     {"k", row.k},
                     {"n_groups", row.n_groups},
                     {"bytes", row.bytes},
                     {"count", row.count},
                     {"type", row.type},
                     {"out_of_place", summary_json(row.out_of_place, row.wrong, row.slowest_group)},
                     {"in_place", summary_json(row.in_place, row.wrong_inplace, row.slowest_group_inplace)}});
  std::ofstream out = open_for_writing(path);
  out << array.dump(2) << '\n';
  TPB_CHECK(out.good(), fmt::format("writing '{}' failed", path));
}

}  // namespace tpb
