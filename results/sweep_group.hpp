#pragma once
// One collective sweep of one TP degree as stored (world rank 0's TpSweep,
// common/sweep_record.hpp, from the sweep command or the study's calibration),
// and the one writer.
//
//   /sweep/k{K} (all-reduce), /sweep_allgather/k{K} (all-gather):
//   bytes, count                      (n_sizes)                      int64
//   time_us, time_inplace_us          (n_sizes x iters x world ranks) every sample
//   time_median_us, time_inplace_median_us, algbw_GBps, busbw_GBps,
//   algbw_inplace_GBps, busbw_inplace_GBps                           (n_sizes) slowest group
//   wrong, wrong_inplace, slowest_group, slowest_group_inplace        (n_sizes) int64
//   wrong_per_rank, wrong_inplace_per_rank                            (n_sizes x world ranks)
// and the attributes: collective (the communicator), collective_memory (host or device), parameters
// (glibc_tunables, timing, batch_calls included), timing_overhead_us,
// fit_alpha_us, fit_beta_GBps, fit_r2, fit_residual_us, piecewise_* per segment; without fits,
// fit_skipped (the reason) instead.
#include <optional>
#include <string>
#include <string_view>

#include "common/sweep_record.hpp"
#include "predictor/latency_bandwidth_fit.hpp"
#include "predictor/piecewise_fit.hpp"
#include "results/h5_file.hpp"
#include "results/layout.hpp"

namespace tpb {

struct SweepFits {
  LatencyBandwidthFit line;  // t(n) = alpha + n/beta over every size
  PiecewiseFit piecewise;    // the same model per segment, breakpoints from the data
};

// Run parameters recorded next to the data (what nccl-tests prints in its header).
struct SweepParameters {
  int warmup_iters = 0;
  int check_iters = 0;
  int graph_calls = 0;
  bool blocking = false;
  std::string timing = "per-call";  // --timing: per-call or batch
  int batch_calls = 0;              // calls per sample with batch timing; 0 with per-call timing
  std::size_t bandwidth_cliff_bytes = 0;  // 0: none detected
  // GLIBC_TUNABLES as the ranks saw it: malloc tuning moves large MPI
  // all-reduce times tenfold (the 32 MiB cliff).
  std::string glibc_tunables = "(unset)";
};

// Why a sweep has no fits (one size: a latency-bandwidth line needs two).
std::string fit_skipped_reason(const TpSweep& tp);

// Writes (or replaces) the sweep group of `root` and tp.k; without fits,
// the attribute fit_skipped holds fit_skipped_reason(tp) instead of the fits.
// `under`: an ablation root (layout.hpp), or the file's root when empty.
void write_sweep_group(H5File& file, SweepRoot root, const TpSweep& tp,
                       const std::optional<SweepFits>& fits, const SweepParameters& parameters,
                       std::string_view under = {});

}  // namespace tpb
