#include "mpi_bench/collective_validation.hpp"

#include <string>

#include "collectives/mpi_check.hpp"
#include "common/error.hpp"

namespace tpb {

void validate_collectively(MPI_Comm comm, const std::function<void()>& validate) {
  int rank = 0;
  int size = 1;
  MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_CHECK(MPI_Comm_size(comm, &size));
  std::string message;
  try {
    validate();
  } catch (const UsageError& error) {
    message = error.what();
  }
  // The lowest failing rank speaks for all (size means "nobody failed").
  const int mine = message.empty() ? size : rank;
  int first_failing = size;
  MPI_CHECK(MPI_Allreduce(&mine, &first_failing, 1, MPI_INT, MPI_MIN, comm));
  if (first_failing == size) return;
  int length = static_cast<int>(message.size());
  MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, first_failing, comm));
  message.resize(static_cast<std::size_t>(length));
  MPI_CHECK(MPI_Bcast(message.data(), length, MPI_CHAR, first_failing, comm));
  throw UsageError(message);
}

}  // namespace tpb
