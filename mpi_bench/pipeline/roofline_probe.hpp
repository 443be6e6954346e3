#pragma once
// `roofline`'s ceilings, measured once at calibration, outside every timed
// loop, on every rank at once as the ranks of a step run: a memory bandwidth
// and a compute peak on the study's backend (read by roofline_calibration.hpp).
#include <mpi.h>

#include "common/choices.hpp"
#include "results/h5_file.hpp"

namespace tpb {

// Collective over `comm`. cpu: host memory's read bandwidth and the FMA peak
// (/membw); cuda: the device-to-device copy bandwidth (/d2d) and the step's
// GEMM rate (/gemm). `file`: rank 0's (null elsewhere).
void probe_roofline_ceilings(BackendKind backend, MPI_Comm comm, H5File* file);

}  // namespace tpb
