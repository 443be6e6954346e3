#pragma once
// The HDF5 side of `mpi_bench sweep`: one group per collective and TP degree,
// {spec.hdf5_group}/k{K} (/sweep/k2, /sweep_allgather/k4), holding every
// sample of every rank and the fits as attributes.
#include <optional>
#include <string>

#include "collectives/tp_sweep.hpp"
#include "predictor/latency_bandwidth_fit.hpp"
#include "predictor/piecewise_fit.hpp"
#include "results/h5_file.hpp"

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
  std::size_t bandwidth_cliff_bytes = 0;  // 0: none detected
  // GLIBC_TUNABLES as the ranks saw it: malloc tuning moves large MPI
  // all-reduce times tenfold (the 32 MiB cliff).
  std::string glibc_tunables = "(unset)";
};

// Fits of the slowest group's median times (out of place) against payload
// bytes; none for a sweep of one size (a valid sweep, as in nccl-tests: a line
// needs two sizes), which fit_skipped_reason() words.
std::optional<SweepFits> fit_sweep(const TpSweep& tp);
std::string fit_skipped_reason(const TpSweep& tp);

// Writes (or replaces) {hdf5_group}/k{K} from world rank 0's TpSweep:
//   bytes, count                      (n_sizes)                      int64
//   time_us, time_inplace_us          (n_sizes x iters x world ranks) every sample
//   time_median_us, time_inplace_median_us, algbw_GBps, busbw_GBps,
//   algbw_inplace_GBps, busbw_inplace_GBps                           (n_sizes) slowest group
//   wrong, wrong_inplace, slowest_group, slowest_group_inplace        (n_sizes) int64
//   wrong_per_rank, wrong_inplace_per_rank                            (n_sizes x world ranks)
// and the attributes: parameters (glibc_tunables included), fit_alpha_us, fit_beta_GBps, fit_r2,
// fit_residual_us, piecewise_* per segment; without fits, fit_skipped (the reason) instead.
void write_tp_sweep(H5File& file, const TpSweep& tp, const std::optional<SweepFits>& fits,
                    const SweepParameters& parameters);

}  // namespace tpb
