#include "collectives/sample_gather.hpp"

#include <fmt/format.h>

#include "collectives/mpi_check.hpp"
#include "common/error.hpp"
#include "common/samples.hpp"

namespace tpb {
namespace {

template <typename T>
std::vector<T> gather(MPI_Comm comm, const std::vector<T>& mine, MPI_Datatype type) {
  int rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_CHECK(MPI_Comm_size(comm, &size));
  // A rank with another count would shift every later rank's samples.
  const auto count = static_cast<std::int64_t>(mine.size());
  std::int64_t smallest = count, largest = count;
  MPI_CHECK(MPI_Allreduce(&count, &smallest, 1, MPI_INT64_T, MPI_MIN, comm));
  MPI_CHECK(MPI_Allreduce(&count, &largest, 1, MPI_INT64_T, MPI_MAX, comm));
  TPB_CHECK(smallest == largest,
            fmt::format("gather: ranks hold between {} and {} samples; rank {} holds {}", smallest, largest, rank,
                        count));
  std::vector<T> by_rank(rank == 0 ? mine.size() * static_cast<std::size_t>(size) : 0);
  MPI_CHECK(MPI_Gather(mine.data(), static_cast<int>(count), type, by_rank.data(), static_cast<int>(count), type, 0,
                       comm));
  if (rank != 0) return {};
  return rank_major_to_iterations(by_rank, static_cast<std::size_t>(size));
}

}  // namespace

std::vector<double> gather_by_iteration(MPI_Comm comm, const std::vector<double>& mine) {
  return gather(comm, mine, MPI_DOUBLE);
}

std::vector<std::int64_t> gather_by_iteration(MPI_Comm comm, const std::vector<std::int64_t>& mine) {
  return gather(comm, mine, MPI_INT64_T);
}

}  // namespace tpb
