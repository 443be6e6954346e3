#include "mpi_bench/pipeline/roofline_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"
#include "predictor/statistics.hpp"
#include "results/probe_file.hpp"

namespace tpb {

std::optional<RooflineCeilings> read_roofline_ceilings(const H5File& file) {
  if (const std::optional<MembwRecord> membw = read_membw(file)) {
    RooflineCeilings c{RooflineBandwidth::host_read, median(membw->read_GBps), membw->threads * membw->fma_peak_GFLOPs,
                       "membw: host memory read, every rank at once", ""};
    TPB_CHECK(c.bandwidth_GBps > 0 && c.peak_GFLOPs > 0,
              fmt::format("/membw: read bandwidth {} GB/s and peak {} GFLOP/s must be > 0", c.bandwidth_GBps,
                          c.peak_GFLOPs));
    return c;
  }
  const std::optional<std::vector<double>> copy = read_d2d(file);
  const std::optional<GemmRateRecord> gemm = read_gemm_rate(file);
  if (!copy || !gemm) return std::nullopt;
  RooflineCeilings c{RooflineBandwidth::device_copy, median(*copy), median(gemm->GFLOPs),
                     "d2d: device-to-device copy, bytes read + written, every rank at once",
                     fmt::format("cuBLAS GEMM {} x {} x {}, {}, every rank at once", gemm->shape.m, gemm->shape.n,
                                 gemm->shape.k, gemm->shape.types)};
  TPB_CHECK(c.bandwidth_GBps > 0 && c.peak_GFLOPs > 0,
            fmt::format("/d2d and /gemm: copy bandwidth {} GB/s and GEMM rate {} GFLOP/s must be > 0",
                        c.bandwidth_GBps, c.peak_GFLOPs));
  return c;
}

double roofline_compute_us(const PhaseLedger& ledger, const RooflineCeilings& ceilings) {
  double total_us = 0;
  for (const auto& [phase, name] : kPhases) {
    if (phase == Phase::all_reduce || phase == Phase::all_gather) continue;  // the sweeps price those
    const PhaseCost& cost = ledger[phase];
    // GB/s and GFLOP/s are 1e3 bytes and flops per µs.
    const double bytes_us = static_cast<double>(cost.bytes_read + cost.bytes_written) / (ceilings.bandwidth_GBps * 1e3);
    const double flops_us = static_cast<double>(cost.flops) / (ceilings.peak_GFLOPs * 1e3);
    total_us += std::max(bytes_us, flops_us);
  }
  return total_us;
}

}  // namespace tpb
