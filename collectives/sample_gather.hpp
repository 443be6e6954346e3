#pragma once
// Every rank's per-iteration samples to rank 0 of a communicator, reordered
// to iterations × ranks (the shape every reduction in common/samples.hpp and
// every results dataset takes). One gather for every caller.
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace tpb {

// Collective over `comm`: each rank contributes `mine` (the same length on
// every rank, checked); rank 0 gets (mine.size() × ranks), row-major, other
// ranks an empty vector.
std::vector<double> gather_by_iteration(MPI_Comm comm, const std::vector<double>& mine);
std::vector<std::int64_t> gather_by_iteration(MPI_Comm comm, const std::vector<std::int64_t>& mine);

}  // namespace tpb
