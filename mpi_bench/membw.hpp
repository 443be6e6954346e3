#pragma once
// Memory read bandwidth, STREAM-like: a sum over a large array with an OpenMP
// SIMD reduction, so the bound the CPU decode step (a stream of weight reads)
// is compared against is measured on the same machine in the same run.
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "results/h5_file.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/step_runner.hpp"

namespace tpb {

struct MembwOptions {
  std::size_t bytes = std::size_t{512} << 20;  // array size: far above the last-level cache
  int warmup = 2;
  int iters = 10;
};

struct MembwResult {
  std::size_t bytes = 0;
  int threads = 0;                // OpenMP threads of this rank
  std::vector<double> read_GBps;  // one per timed pass (GB = 1e9 bytes)
  double fma_peak_GFLOPs = 0;     // one thread of this rank, measured after the passes (tp_decoder/cpu/roofline.hpp)
};

// Collective over `comm`: every rank measures at the same time, passes
// started together by a barrier (concurrent ranks share the memory system, as
// the concurrent ranks of a step do); then each rank's one-core FMA peak.
MembwResult measure_read_bandwidth(MPI_Comm comm, const MembwOptions& options);

// Collective over `comm`: every rank's passes to rank 0 (iters x ranks), which
// writes them with its threads and FMA peak to /membw when `file` is given.
// Returns the gathered matrix on rank 0 (empty elsewhere).
std::vector<double> gather_membw(MPI_Comm comm, H5File* file, const MembwResult& mine);

// One line for `step --membw`: each matmul phase of a step point (qkv, o_proj,
// gate_up, down, lm_head; rank 0's shard) as limit / median phase time, the
// limit being max(weight bytes / read_GBps, flops / (threads × fma peak)) summed
// over the layers. read_GBps is membw's figure, every rank reading at once.
std::string matmul_phase_fractions(const ModelConfig& config, int tp, int batch, const StepTerms& terms,
                                   double read_GBps, double fma_peak_GFLOPs, int threads);

}  // namespace tpb
