#pragma once
// What every study stage that runs steps needs on every rank: the declared
// study, the rank map, the model, the backend and the world communicator.
// Also runs one step point on every TP group at once and gathers the samples
// on world rank 0.
#include <map>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "mpi_bench/grid_options.hpp"
#include "mpi_bench/memory_precheck.hpp"
#include "mpi_bench/rank_context.hpp"
#include "predictor/registration.hpp"
#include "results/h5_file.hpp"
#include "results/results_file.hpp"
#include "results/step_point.hpp"
#include "results/study_file.hpp"
#include "tp_decoder/backend.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/step_runner.hpp"

namespace tpb {

// The study as declared on the command line (calibrate, run) and stored in /study.
// The grid and timing choices every step-running command makes, plus the
// calibration sweeps and the bootstrap.
struct StudyDeclaration : GridChoice {
  int sweep_iters = 20;
  int calibration_rounds = 10;  // rounds of the calibration's replays and TP-1 --no-comm
  std::uint64_t bootstrap_seed = 20240;  // also seeds the visiting order of the rounds
  int bootstrap_resamples = 2000;
  int rounds = kDefaultRounds;  // --rounds N, sealed at registration
  double time_budget_s = 0;     // --time-budget: a guard that ends the rounds early; 0 means none
  DecisionDeclaration decision;  // --tpot-slo, --predict-tp
};

// The key of a shard's cache: its TP degree, and whether it is rank 0's
// replay shard of TP-k (at TP-1 the replay shard and every rank's own shard
// are the whole model: one cache).
using ShardCacheKey = std::pair<int, bool>;
ShardCacheKey shard_cache_key(int point_tp, bool replay);

// One shard's weights and the decode states of the points visited on it.
struct ShardCache {
  WeightCache weights;
  DecodeStateCache states;  // filled only by visits that keep their state (PointState::kept)
};

struct StudyRuntime {
  RankContext ranks;
  StudyDeclaration declaration;
  ModelConfig config;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Communicator> world;
  // One cache per shard this rank draws (TP degree, and whether it is rank 0's
  // replay shard), so that rounds interleave conditions without redrawing
  // weights, and, where the phase's residency keeps them, without rebuilding
  // their points' decode states. Declared after backend: released before it.
  std::map<ShardCacheKey, ShardCache> shards;
  MemoryPlan memory;    // the pre-allocation check this rank passed
};

// The cache of the shard `point_tp` draws on this rank (`replay`: rank 0's
// shard of TP-k, as a shard replay runs).
ShardCache& shard_cache_for(StudyRuntime& runtime, int point_tp, bool replay);

// What the study's memory check estimates a rank holds (the TP degree is
// each point's; the collective's buffers those of every group the rounds hold
// at once).
MemorySetup study_memory_setup(const StudyDeclaration& declaration);

// Collective. Validates the declaration (UsageError on every rank when any
// rank finds it bad: unknown model file, k not dividing the world or the model).
StudyRuntime start_study_runtime(const StudyDeclaration& declaration);

// The workload record of this study (config digest, sizes, sample counts).
Workload describe_workload(const StudyRuntime& runtime);

// The degrees of `grid_tp` whose groups issue collectives (k > 1): the
// calibration sweeps these, and a group of one rank opens no communicator.
std::vector<int> collective_degrees(const std::vector<int>& grid_tp);

// The collective the study's steps run with, as /study records it; a file
// that does not record one ran the backend's default.
CollectiveKind stored_study_collective(const StudyDesign& design, BackendKind backend);

// Rank 0 reads /study from `file_path`; every rank gets the declaration,
// field by field.
StudyDeclaration broadcast_declaration(const RankContext& ranks, const std::string& file_path);

// Runs `point` on every rank at once: every TP group of size point.tp
// (`group` is this rank's), or with group == nullptr a shard replay on every
// rank. Every rank starts each step together (StepOptions::lockstep). The
// in-situ collective times are measured unless `in_situ` says skip (in
// separate profiled iterations where timing each operation would perturb the
// timed ones, so skipping saves a whole pass on such a backend). With
// `state` kept, the point's decode state stays in its shard's cache for the
// next visit (the caller has budgeted it). On world rank 0, `group0` holds
// group 0's columns (for a replay, rank 0 alone), `all_ranks_t_rank_us`
// every world rank's own step time (iterations × world size; the slowest of
// a group's columns is that group's t_step), `all_ranks_t_host_us` every
// world rank's host issue time, alike, and `all_ranks_collective_us`
// every world rank's time inside the step's collectives, all-reduces and
// all-gather, where the timed iterations themselves recorded it (empty
// otherwise: not measured, or measured in further profiled iterations).
// Empty on other ranks.
struct GatheredPoint {
  std::string path;  // where the point belongs in the results file
  StepPointRecord group0;
  StepPointAttributes attributes;
  std::vector<double> all_ranks_t_rank_us;
  std::vector<double> all_ranks_t_host_us;
  std::vector<double> all_ranks_collective_us;
};
enum class InSituCollectives { measure, skip };
enum class PointState { rebuilt, kept };
GatheredPoint run_point_everywhere(StudyRuntime& runtime, Communicator* group, const StepPoint& point,
                                   const StepOptions& options,
                                   InSituCollectives in_situ = InSituCollectives::measure,
                                   PointState state = PointState::rebuilt);

// Rank 0: writes group 0's columns of the point and flushes.
void write_gathered_point(ResultsFile& file, const GatheredPoint& point);

// Runs TP-1 at `point` on one rank at a time while the others wait: on rank 0,
// iterations × world size, column r measured with rank r alone.
std::vector<double> run_point_each_rank_alone(StudyRuntime& runtime, Communicator& own_group,
                                              const StepPoint& point, const StepOptions& options);

// Every rank tells the watchdog a point starts; rank 0 prints it as a plain
// line (the study is minutes long, and logs read better than a redrawn line).
void study_progress(const StudyRuntime& runtime, const std::string& line);

}  // namespace tpb
