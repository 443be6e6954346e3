#pragma once
// From the decoder's per-rank terms to the results file's step point: every
// rank's terms gathered to rank 0 (iterations × ranks; t_step iterations ×
// groups, the slowest rank of each TP group), converted into results/step_point.hpp's record and
// attributes. The layout itself is results/layout.hpp's.
#include <mpi.h>

#include <string>

#include "collectives/communicator.hpp"
#include "results/environment_file.hpp"
#include "results/step_point.hpp"
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

// Collective over `comm`: every rank's terms to rank 0 of `comm`, with t_step
// the slowest rank of each group of `tp` consecutive ranks (one column per group). Only rank 0's
// return value is filled. Over MPI_COMM_SELF with tp 1: one rank's terms as a
// record of one column (replay).
StepPointRecord gather_step_point(MPI_Comm comm, int tp, const StepTerms& mine);

// The point's attributes; `root_terms` are the gathering rank's own (what ran,
// and its group's check), `group` its TP group's communicator (null for a
// replay), which names the collective and the memory its data lived in.
StepPointAttributes step_point_attributes(const StepRunInfo& info, const ModelConfig& config,
                                          const StepTerms& root_terms, const Communicator* group);

std::string step_point_path(const StepRunInfo& info);  // {root}/k{K}/b{B}_c{C}

// /config's record: the JSON text as loaded plus the parsed fields (layers as run).
ModelConfigRecord model_config_record(const ModelConfig& config);

}  // namespace tpb
