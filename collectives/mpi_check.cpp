#include "collectives/mpi_check.hpp"

namespace tpb {

void throw_mpi_error(int code, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  throw_error("MPI", code, length > 0 ? std::string(text, static_cast<std::size_t>(length)) : "unknown MPI error",
              file, line);
}

}  // namespace tpb
