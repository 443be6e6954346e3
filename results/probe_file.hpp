#pragma once
// /membw and /d2d: a memory bandwidth measured on every rank at once, one
// figure per pass (passes × ranks, GB = 1e9 bytes), and how it was measured;
// /gemm: a GEMM's rate likewise (GFLOP = 1e9 flop).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/h5_file.hpp"

namespace tpb {

struct BandwidthRecord {
  std::vector<double> GBps;  // passes × ranks, row-major
  int passes = 0, ranks = 0;
  std::int64_t bytes = 0;  // per rank and pass
};

// /membw/read_GBps, with rank 0's OpenMP threads and one-core FMA peak.
void write_membw(H5File& file, const BandwidthRecord& read, int threads, double fma_peak_GFLOPs);
// /d2d/copy_GBps: bytes read + written per copy.
void write_d2d(H5File& file, const BandwidthRecord& copy);
// /d2d/copy_GBps as written (passes × ranks); none when the file has no /d2d.
std::optional<std::vector<double>> read_d2d(const H5File& file);

// /gemm: one GEMM's rate per pass and rank (2 m n k / time), and its shape.
struct GemmShape {
  int m = 0, n = 0, k = 0;
  std::string types;  // of its operands and accumulation: "bf16 x, w and y, fp32 accumulation"
};
struct GemmRateRecord {
  std::vector<double> GFLOPs;  // passes × ranks, row-major
  GemmShape shape;
};
void write_gemm_rate(H5File& file, const GemmRateRecord& rate, int passes, int ranks);
// /gemm as written; none when the file has no /gemm.
std::optional<GemmRateRecord> read_gemm_rate(const H5File& file);

// /membw as written: every pass of every rank, and rank 0's threads and
// one-core FMA peak; none when the file has no /membw.
struct MembwRecord {
  std::vector<double> read_GBps;  // passes × ranks, row-major
  int threads = 0;
  double fma_peak_GFLOPs = 0;
};
std::optional<MembwRecord> read_membw(const H5File& file);

}  // namespace tpb
