#pragma once
// A sweep of one TP degree k over the whole launch: the world is split into
// groups of k consecutive ranks, every group sweeps at the same time (as TP
// groups share a node in a real job), and the samples of every rank are
// collected on world rank 0. The reported figure per size is the slowest
// group's.
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "collectives/sweep_harness.hpp"

namespace tpb {

struct TpSweep {
  std::string operation;   // spec name
  const CollectiveSpec* spec = nullptr;  // what was swept
  std::string backend;
  MemoryKind memory = MemoryKind::host;  // where the swept buffers lived
  DataType type = DataType::f32;
  int k = 1;
  int world_size = 1;
  int n_groups = 1;
  int iters = 0;
  double bus_factor = 0.0;
  double timing_overhead_us = 0.0;  // SweepResult::timing_overhead_us, the largest over groups

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

  std::vector<double> median_times_us() const;  // out_of_place[i].time_us, for fits
};

// Collective over `world`; UsageError unless k divides the world size.
TpSweep run_tp_sweep(Communicator& world, int k, const CollectiveSpec& spec, const SweepOptions& options);

}  // namespace tpb
