#include "mpi_bench/device_probes.hpp"

#include "collectives/mpi_check.hpp"
#include "collectives/sample_gather.hpp"
#include "results/probe_file.hpp"

namespace tpb {
namespace {

int ranks_of(MPI_Comm comm) {
  int size = 1;
  MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

}  // namespace

std::vector<double> gather_d2d_copy(MPI_Comm comm, H5File* file, const D2dCopyOptions& options) {
  MPI_CHECK(MPI_Barrier(comm));  // every GPU copies at once
  const std::vector<double> matrix = gather_by_iteration(comm, measure_d2d_copy_GBps(options));
  if (file != nullptr)
    write_d2d(*file, {matrix, options.iters, ranks_of(comm), static_cast<std::int64_t>(options.bytes)});
  return matrix;
}

std::vector<double> gather_gemm_rate(MPI_Comm comm, H5File* file, const GemmRateOptions& options) {
  MPI_CHECK(MPI_Barrier(comm));  // every GPU multiplies at once
  const std::vector<double> matrix = gather_by_iteration(comm, measure_gemm_GFLOPs(options));
  if (file != nullptr)
    write_gemm_rate(*file, {matrix, {options.m, options.n, options.k, kGemmRateTypes}}, options.iters, ranks_of(comm));
  return matrix;
}

}  // namespace tpb
