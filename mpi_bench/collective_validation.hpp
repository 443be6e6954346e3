#pragma once
// Input checks that every rank agrees on. A check may fail on one rank only
// (a device missing, an output path only rank 0 opens); without agreement the
// other ranks would walk into a collective and hang.
#include <mpi.h>

#include <functional>

namespace tpb {

// Runs `validate` on every rank. If it throws UsageError on any rank, every
// rank throws UsageError with the message of the lowest failing rank.
void validate_collectively(MPI_Comm comm, const std::function<void()>& validate);

}  // namespace tpb
