#pragma once
// A sweep of one TP degree k over the whole launch: the world is split into
// groups of k consecutive ranks, every group sweeps at the same time (as TP
// groups share a node in a real job), and the samples of every rank are
// collected on world rank 0. The reported figure per size is the slowest
// group's.
#include "collectives/collective_spec.hpp"
#include "collectives/sweep_harness.hpp"
#include "common/sweep_record.hpp"

namespace tpb {

// Collective over `world`; UsageError unless k divides the world size.
TpSweep run_tp_sweep(Communicator& world, int k, const CollectiveSpec& spec, const SweepOptions& options);

}  // namespace tpb
