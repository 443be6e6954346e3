#include "mpi_bench/mpi_thread_level.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include "collectives/mpi_check.hpp"
#include "common/error.hpp"

namespace tpb {

int requested_mpi_thread_level(const char* text) {
  const std::string_view value = text ? text : "";
  if (value.empty() || value == "funneled") return MPI_THREAD_FUNNELED;
  if (value == "single") return MPI_THREAD_SINGLE;
  throw UsageError(fmt::format("TPB_MPI_THREAD: invalid value '{}' (expected single or funneled)", value));
}

std::string provided_mpi_thread_level() {
  int level = 0;
  MPI_CHECK(MPI_Query_thread(&level));
  switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    default: return "unknown";
  }
}

}  // namespace tpb
