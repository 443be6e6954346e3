#pragma once
// The GPU's ceilings on every rank at once (the ranks of a step run at once,
// so each device is measured as loaded as it will be), each rank's figures
// gathered to rank 0 as passes × ranks and written to `file` (rank 0's; null
// elsewhere, or to write nothing):
// the device-to-device copy bandwidth (/d2d: `mpi_bench d2d`, and `roofline`'s
// bandwidth at a cuda calibration) and the step's GEMM rate (/gemm: `roofline`'s
// peak). Collective over `comm`; CUDA builds only. Each returns the gathered
// matrix on rank 0 (empty elsewhere).
#include <mpi.h>

#include <vector>

#include "results/h5_file.hpp"
#include "tp_decoder/cuda/d2d_copy.hpp"
#include "tp_decoder/cuda/gemm_rate.hpp"

namespace tpb {

std::vector<double> gather_d2d_copy(MPI_Comm comm, H5File* file, const D2dCopyOptions& options);
std::vector<double> gather_gemm_rate(MPI_Comm comm, H5File* file, const GemmRateOptions& options);

}  // namespace tpb
