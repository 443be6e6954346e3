#pragma once
// The MPI thread level every rank asks for (TPB_MPI_THREAD). funneled is the
// default and what the decoder needs: only the main thread calls MPI, while
// OpenMP threads compute. Open MPI 4.1 makes every call slower above
// MPI_THREAD_SINGLE (about 0.2 µs per 8-byte all-reduce on a 2-core node), so
// a collective sweep compared with IMB or the OSU benchmarks, which
// initialise at single, can ask for single: no other thread of tpbench ever
// calls MPI (the watchdog only ends the process). The level provided is
// recorded in /meta.
#include <string>
#include <string_view>

namespace tpb {

// MPI_THREAD_SINGLE or MPI_THREAD_FUNNELED for the value of TPB_MPI_THREAD
// (null or empty: funneled). UsageError naming the value otherwise.
int requested_mpi_thread_level(const char* text);

// The level MPI_Query_thread reports, by name: "single", "funneled", "serialized" or "multiple".
std::string provided_mpi_thread_level();

}  // namespace tpb
