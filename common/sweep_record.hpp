#pragma once
// A collective sweep as measured and as stored: collectives/ fills these
// (sweep_harness.hpp for one group, tp_sweep.hpp for a TP degree) and the
// results file's writer (results/sweep_group.hpp) takes a TpSweep as it is.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tpb {

// Derived from the per-iteration, per-rank times of one group at one size.
struct PointSummary {
  double time_us = 0.0;      // median over iterations of the slowest rank's time
  double rank_min_us = 0.0;  // min / mean / max across ranks of each rank's median time
  double rank_avg_us = 0.0;
  double rank_max_us = 0.0;
  double algbw_GBps = 0.0;   // payload bytes / time_us
  double busbw_GBps = 0.0;   // algbw * the collective's bus factor
};

// What was swept and how: the same for one group's sweep and a TP degree's.
struct SweepHeader {
  std::string operation;  // spec name: "all_reduce", "all_gather"
  std::string backend;    // the communicator: "mpi", "nccl", "oneshot"
  std::string memory;     // "host" or "device": where the swept buffers lived
  std::string datatype;   // "float", "bfloat16", "half"
  int iters = 0;
  double bus_factor = 0.0;
  // The harness's own cost per sample, measured by timing an empty region
  // the way calls are timed (per call: one clock read; batch: an empty
  // batch), divided by calls per sample; the slowest rank's median (for a
  // TP degree, the largest over its groups).
  double timing_overhead_us = 0.0;
};

// A sweep of one TP degree k over the whole launch (run_tp_sweep).
struct TpSweep : SweepHeader {
  int k = 1;
  int world_size = 1;
  int n_groups = 1;

  // On every rank, one entry per size.
  std::vector<std::size_t> bytes;
  std::vector<std::size_t> counts;
  std::vector<PointSummary> out_of_place;  // the slowest group's summary at each size
  std::vector<PointSummary> in_place;
  std::vector<int> slowest_group;          // which group that was (group g holds ranks g*k .. g*k+k-1)
  std::vector<int> slowest_group_inplace;
  std::vector<std::int64_t> wrong;         // wrong elements summed over every rank
  std::vector<std::int64_t> wrong_inplace;

  // On world rank 0 only (empty elsewhere): every sample of every rank.
  std::vector<double> time_us;  // [size][iteration][world rank]
  std::vector<double> time_inplace_us;
  std::vector<std::int64_t> wrong_per_rank;  // [size][world rank]
  std::vector<std::int64_t> wrong_inplace_per_rank;
};

}  // namespace tpb
