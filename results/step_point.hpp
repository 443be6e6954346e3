#pragma once
// One step point as stored: the record every writer of a point fills (step,
// replay and the study's calibrate and measure stages), and the one writer.
// Plain data: the decoder's terms are converted into it by mpi_bench after
// the gather, so results/ knows nothing of the decoder or of MPI.
//
//   {root}/k{K}/b{B}_c{C}/     (root: layout.hpp's StepRoot)
//     t_step_us        (iterations × groups) slowest rank of each TP group
//     t_rank_us        (iterations × ranks)  each rank's own time
//     t_host_us        (iterations × ranks)  start to the end of issuing the step
//     t_ar_insitu_us   (iterations × ranks)  inside the all-reduce calls, when measured
//     t_ag_insitu_us   (iterations × ranks)  inside the logits all-gather, when measured
//     phase/{name}_us  (iterations × ranks)  per phase, summed over layers, when measured
//     tp_group         (ranks)               the TP group of each t_rank_us column
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/h5_file.hpp"
#include "results/layout.hpp"

namespace tpb {

// Row-major iterations × ranks matrices (t_step_us: iterations × groups); a
// term not measured is empty. A point visited more than once (rounds) is
// written once per visit, each visit its own record.
struct StepPointRecord {
  int iters = 0;
  int ranks = 0;
  int groups = 0;                  // TP groups among the ranks (consecutive ranks, tp_group 0, 1, ...)
  std::vector<double> t_step_us;   // iterations × groups: each group's slowest rank
  std::vector<double> t_rank_us;   // iterations × ranks: each rank's own time
  std::vector<double> t_host_us;
  std::vector<double> t_ar_insitu_us;
  std::vector<double> t_ag_insitu_us;
  std::vector<std::pair<std::string, std::vector<double>>> phase_us;  // phase name -> matrix
  std::vector<std::int64_t> tp_group;                                // one entry per column
};

// The columns [first, first + count) of a record (e.g. group 0 of a world
// gather), and the t_step_us columns of the groups they hold: the range must
// cover whole groups.
StepPointRecord record_columns(const StepPointRecord& record, int first, int count);

// Appends `more`'s iterations below `into`'s (a point measured in rounds is
// stored as one record, its iterations in execution order). Empty `into`
// takes `more` as it is; otherwise the two must have the same columns and
// the same measured terms (TPB_CHECK).
void append_iterations(StepPointRecord& into, const StepPointRecord& more);

// What --check found on the first rank of group 0.
struct StepPointCheck {
  bool compared_with_tp1 = false;
  double max_abs_logit_diff = 0;
  double max_abs_logit = 0;
  double tolerance = 0;
  std::string tolerance_reason;
  bool passed = true;
};

// How the point ran, stored as the group's attributes.
struct StepPointAttributes {
  int tp = 1;
  int batch = 0;
  int context = 0;
  int layers = 0;
  int layers_in_file = 0;
  std::string model;
  std::string backend;
  // The communicator of the point's TP group and where its data lived ("host"
  // or "device"); empty where no collective ran (a replay, --no-comm).
  std::string collective;
  std::string collective_memory;
  std::string device;
  std::string dtype;
  std::string activation_dtype;
  std::int64_t ar_bytes = 0;
  std::int64_t n_ar = 0;
  bool no_comm = false;
  bool graph = false;
  bool profile = false;
  bool timers = true;
  // The in-situ collective times come from separate profiled iterations,
  // because timing each operation would perturb the timed ones.
  bool collectives_profiled_separately = false;
  int warmup = 0;
  int iters = 0;
  std::string seed;  // hexadecimal
  std::int64_t weight_bytes_per_step = 0;
  // Mixture-of-experts models: (layers × experts_per_layer) 1 where the
  // layer's routing touched the expert; empty for a dense model.
  std::vector<std::int64_t> experts_touched;
  int experts_per_layer = 0;
  std::optional<StepPointCheck> check;
  std::optional<double> membw_read_GBps;  // `step --membw`: rank 0's median read bandwidth, every rank reading
};

// Writes (or replaces) the point's datasets and attributes; the caller flushes.
void write_step_point(H5File& file, const std::string& point_path, const StepPointRecord& record,
                      const StepPointAttributes& attributes);

// /control/{mode}/b{B}_c{C}/t_rank_us: TP-1's per-rank times (iterations × ranks) in the same-node control.
void write_control_t_rank(H5File& file, ControlMode mode, int batch, int context, const std::vector<double>& t_rank_us,
                          int iters, int ranks);

// Per iteration, the slowest rank of the point's group 0. t_step_us: its
// column 0 in schemas 3 (iterations × groups) and 2 (iterations × ranks, each
// column its group's slowest); in schema 1 (no tp_group, group 0's own times)
// the maximum over the columns. Any other dataset (t_host_us): the maximum
// over group 0's columns.
std::vector<double> group0_slowest_per_iteration(const H5File& file, const std::string& point_path,
                                                 const char* dataset);

// Median over iterations of the slowest rank's time in the step's
// collectives (all-reduces plus the logits all-gather); absent when the point
// holds no in-situ collective time.
std::optional<double> collective_median_us(const H5File& file, const std::string& point_path);

}  // namespace tpb
