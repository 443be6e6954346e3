#pragma once
// The HDF5 side of `mpi_bench step` and `mpi_bench replay`: one group per
// (k, b, c) point holding every timed iteration of every rank.
//
//   {root}/k{K}/b{B}_c{C}/                root: /step, /step_nocomm, /step_graph,
//                                               /step_graph_nocomm or /replay
//     t_step_us        (iters x ranks)  slowest rank of the column's TP group, start barrier to done
//     t_rank_us        (iters x ranks)  the column's own rank, start barrier to done
//     t_host_us        (iters x ranks)  start to the end of issuing the step
//     t_ar_insitu_us   (iters x ranks)  inside the all-reduce calls (when measured)
//     t_ag_insitu_us   (iters x ranks)  inside the logits all-gather (when measured)
//     phase/{name}_us  (iters x ranks)  per phase, summed over layers (when measured)
//     tp_group         (ranks)          TP group of each column
//   attributes: tp, batch, context, layers, layers_in_file, backend, device, dtype, activation_dtype,
//     ar_bytes, n_ar, no_comm, graph, profile, timers, warmup, iters, seed, weight_bytes_per_step,
//     and check_* when --check ran.
//   /config: the model config as loaded (attribute json) and its parsed fields as attributes.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "results/h5_file.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/step_runner.hpp"

namespace tpb {

// How a point was run (identical on every rank).
struct StepRunInfo {
  std::string backend;  // "cpu", "cuda"
  StepPoint point;
  StepOptions options;
  bool replay = false;
};

// One point from every contributing rank, on the gathering root. Matrices are
// row-major (iters x ranks); a term not measured is an empty vector.
struct StepPointRecord {
  int iters = 0;
  int ranks = 0;
  std::vector<double> t_step_us;
  std::vector<double> t_rank_us;
  std::vector<double> t_host_us;
  std::vector<double> t_ar_insitu_us;
  std::vector<double> t_ag_insitu_us;
  std::array<std::vector<double>, kPhaseCount> phase_us;
  std::vector<std::int64_t> tp_group;
  StepTerms root_terms;  // the root's own terms: what ran, and its group's check
};

// Collective over `comm`: every rank's terms to rank 0 of `comm`, with t_step
// the slowest rank of each group of `tp` consecutive ranks. Only rank 0's
// return value is filled.
StepPointRecord gather_step_point(MPI_Comm comm, int tp, const StepTerms& mine);

// A single rank's terms as a record (replay: one column).
StepPointRecord single_rank_record(const StepTerms& terms);

// "/step", "/step_nocomm", "/step_graph", "/step_graph_nocomm" or "/replay".
std::string step_root(const StepRunInfo& info);
std::string step_point_path(const StepRunInfo& info);  // {root}/k{K}/b{B}_c{C}

// Writes (or replaces) the point's group; the caller flushes.
void write_step_point(H5File& file, const StepRunInfo& info, const ModelConfig& config, const StepPointRecord& record);

// /config: the JSON text as loaded plus the parsed fields (layers as run).
void write_model_config(H5File& file, const ModelConfig& config);

}  // namespace tpb
