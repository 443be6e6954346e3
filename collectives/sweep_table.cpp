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

std::string table_line(const TpSweep& tp, std::size_t s) {
  const PointSummary& o = tp.out_of_place[s];
  const PointSummary& i = tp.in_place[s];
  return fmt::format(
      " {:>12} {:>12} {:>8}  {:>9.2f} {:>8.2f} {:>8.2f} {:>6}  {:>9.2f} {:>8.2f} {:>8.2f} {:>6}  {:>23}\n",
      tp.bytes[s], tp.counts[s], tp.datatype, o.time_us, o.algbw_GBps, o.busbw_GBps, tp.wrong[s], i.time_us,
      i.algbw_GBps, i.busbw_GBps, tp.wrong_inplace[s],
      fmt::format("{:.1f}/{:.1f}/{:.1f}", o.rank_min_us, o.rank_avg_us, o.rank_max_us));
}

void write_rows_csv(const std::string& path, const std::vector<TpSweep>& sweeps) {
  std::ofstream out = open_for_writing(path);
  out << "operation,k,n_groups,bytes,count,type";
  for (const char* placement : {"", "_inplace"})
    for (const char* column : {"time_us", "rank_min_us", "rank_avg_us", "rank_max_us", "algbw_GBps", "busbw_GBps",
                               "wrong", "slowest_group"})
      out << ',' << column << placement;
  out << '\n';
  const auto placement = [&](const PointSummary& s, std::int64_t wrong, int slowest) {
    out << fmt::format(",{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{}", s.time_us, s.rank_min_us, s.rank_avg_us,
                       s.rank_max_us, s.algbw_GBps, s.busbw_GBps, wrong, slowest);
  };
  for (const TpSweep& tp : sweeps)
    for (std::size_t s = 0; s < tp.bytes.size(); ++s) {
      out << fmt::format("{},{},{},{},{},{}", tp.operation, tp.k, tp.n_groups, tp.bytes[s], tp.counts[s],
                         tp.datatype);
      placement(tp.out_of_place[s], tp.wrong[s], tp.slowest_group[s]);
      placement(tp.in_place[s], tp.wrong_inplace[s], tp.slowest_group_inplace[s]);
      out << '\n';
    }
  TPB_CHECK(out.good(), fmt::format("writing '{}' failed", path));
}

void write_rows_json(const std::string& path, const std::vector<TpSweep>& sweeps) {
  nlohmann::json array = nlohmann::json::array();
  for (const TpSweep& tp : sweeps)
    for (std::size_t s = 0; s < tp.bytes.size(); ++s)
      array.push_back({{"operation", tp.operation},
                       {"k", tp.k},
                       {"n_groups", tp.n_groups},
                       {"bytes", tp.bytes[s]},
                       {"count", tp.counts[s]},
                       {"type", tp.datatype},
                       {"out_of_place", summary_json(tp.out_of_place[s], tp.wrong[s], tp.slowest_group[s])},
                       {"in_place", summary_json(tp.in_place[s], tp.wrong_inplace[s], tp.slowest_group_inplace[s])}});
  std::ofstream out = open_for_writing(path);
  out << array.dump(2) << '\n';
  TPB_CHECK(out.good(), fmt::format("writing '{}' failed", path));
}

}  // namespace tpb
