#pragma once
// MPI_CHECK: turns a failed MPI call into tpb::Error with MPI's own message.
// Communicators use MPI_ERRORS_RETURN (set by the rank bootstrap) so that
// failures reach this check instead of aborting inside the library.
#include <mpi.h>

#include "common/error.hpp"

namespace tpb {
[[noreturn]] void throw_mpi_error(int code, const char* file, int line);
}

#define MPI_CHECK(call)                                                \
  do {                                                                 \
    const int tpb_status_ = (call);                                    \
    if (tpb_status_ != MPI_SUCCESS) ::tpb::throw_mpi_error(tpb_status_, __FILE__, __LINE__); \
  } while (0)
