#pragma once
// The results file layout: every group and dataset a tpbench file may hold,
// named here and nowhere else. Writers and readers build paths with these
// functions; `verify` asks schema_names() whether a path belongs. What each
// group, dataset and attribute means, with its unit: docs/RESULTS_FORMAT.md.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpb {

// Bumped whenever a dataset's name, shape or meaning changes.
//   4: one name, one quantity: per-rank times are t_rank_us (/rounds,
//      /calibration_rounds and /control), the rounds' t_host_us holds every
//      rank, every group names its communicator in `collective` (sweep groups
//      called it `backend`), and /verdict holds rule version 6. Earlier files
//      are refused, not read.
//   3: t_step_us is iterations × groups (one column per TP group, its slowest
//      rank); version 2 repeated each group's slowest rank in every one of its
//      rank columns (iterations × ranks).
//   2: study points hold t_rank_us (each rank's own time) beside t_step_us, like
//      step files; version 1 study files stored each rank's own time under
//      t_step_us.
inline constexpr std::int64_t kSchemaVersion = 4;
bool readable_schema_version(std::int64_t version);
// "/meta schema_version is 3, this tpbench reads only version 4"
std::string unreadable_schema_message(std::int64_t version);

inline constexpr const char* kMetaGroup = "/meta";
inline constexpr const char* kConfigGroup = "/config";
inline constexpr const char* kStudyGroup = "/study";
inline constexpr const char* kPreregGroup = "/prereg";
inline constexpr const char* kPreregText = "/prereg/predictions_json";
inline constexpr const char* kMembwGroup = "/membw";
inline constexpr const char* kMembwReadGBps = "/membw/read_GBps";  // (passes × ranks)
inline constexpr const char* kD2dGroup = "/d2d";
inline constexpr const char* kD2dCopyGBps = "/d2d/copy_GBps";  // (passes × ranks)
inline constexpr const char* kGemmGroup = "/gemm";
inline constexpr const char* kGemmRateGFLOPs = "/gemm/rate_GFLOPs";  // (passes × ranks)

// Attributes of a sweep or step group naming its collective (the
// communicator) and where its data lived: "host" or "device"
// (to_string(MemoryKind)). A step group where no collective ran (a replay,
// --no-comm, k = 1) has neither. `backend` is the decoder's (cpu, cuda).
namespace collective_attribute {
inline constexpr const char* name = "collective";           // sweep and step groups, ablation roots: mpi, nccl, oneshot
inline constexpr const char* memory = "collective_memory";  // sweep and step groups: "host" or "device"
}  // namespace collective_attribute

// Where a step point was measured: the decode step, its ablations, or a
// single-device shard replay.
enum class StepRoot { step, step_nocomm, step_graph, step_graph_nocomm, replay };
std::string step_root_path(StepRoot root);  // "/step", "/step_nocomm", ...
StepRoot step_root_for(bool replay, bool graph, bool no_comm);

// {root}/k{K}/b{B}_c{C}: one (k, batch, context) point.
std::string step_point_path(StepRoot root, int k, int batch, int context);

// Datasets of a step point (iterations × ranks unless stated).
namespace step_dataset {
inline constexpr const char* t_step_us = "t_step_us";            // (iterations × groups) each group's slowest rank
inline constexpr const char* t_rank_us = "t_rank_us";            // each rank's own time
inline constexpr const char* t_host_us = "t_host_us";            // start to the end of issuing the step
inline constexpr const char* t_ar_insitu_us = "t_ar_insitu_us";  // inside the all-reduce calls, when measured
inline constexpr const char* t_ag_insitu_us = "t_ag_insitu_us";  // inside the logits all-gather, when measured
inline constexpr const char* tp_group = "tp_group";              // (ranks) the TP group of each rank column
inline constexpr const char* phase_group = "phase";              // phase/{name}_us, when measured
// (layers × experts) 1 where the layer's routing touched the expert, 0 where
// not; mixture-of-experts models only (routing is fixed per point).
inline constexpr const char* experts_touched = "experts_touched";
}  // namespace step_dataset
std::string step_dataset_path(const std::string& point_path, const char* dataset);
std::string phase_dataset_path(const std::string& point_path, std::string_view phase_name);

// The same-node control: TP-1 on every rank at once, and each rank alone.
enum class ControlMode { concurrent, alone };
std::string control_t_rank_path(ControlMode mode, int batch, int context);  // (iterations × ranks) each rank's own time

// Collective sweeps: /sweep (all-reduce) and /sweep_allgather, one group per k;
// `under` places them below an ablation root (ablation_root_path).
enum class SweepRoot { all_reduce, all_gather };
std::string sweep_root_path(SweepRoot root);
std::string sweep_group_path(SweepRoot root, int k, std::string_view under = {});
std::string sweep_dataset_path(SweepRoot root, int k, const char* dataset, std::string_view under = {});

// A study's collective ablation (`run --ablate-collective`): the sweeps, TP-k
// steps and registration of another collective implementation, laid out below
// /ablation/{collective} exactly as the study's own are at the file's root
// (/ablation/oneshot/sweep/k2, /ablation/oneshot/step/k2/b1_c16,
// /ablation/oneshot/prereg/predictions_json), so that they never overwrite the
// groups of the study's own collective.
inline constexpr const char* kAblationGroup = "/ablation";
std::string ablation_root_path(std::string_view collective);  // "/ablation/oneshot"

// `mpi_bench kv`: /kv (the question's lengths, contexts, block sizes),
// /kv/blocks/b{B} (paged allocation per block size), /kv/tp/k{K} (capacity).
inline constexpr const char* kKvGroup = "/kv";
std::string kv_dataset_path(const char* dataset);
std::string kv_block_path(int block_tokens);
std::string kv_degree_path(int k);

// /rounds: the study measured in randomized interleaved rounds.
//   /rounds                 attributes: conditions (names, in condition index order), order_seed,
//                           rounds, stop_reason (empty when every declared round ran), residency ("every shard and point state cached",
//                           "every shard cached" or "blocks A-B-B-A")
//   /rounds/order           (rounds × conditions) condition index visited at each position
//   /rounds/block_of_condition  (conditions) each condition's memory block, with blocks only
//   /rounds/visits/{visit_dataset}  (visits) one entry per visit, in execution order
//   {round condition}/{round_dataset}  below
// Calibration runs in rounds too, laid out alike under /calibration_rounds
// (its conditions: the shard replays and TP-1 --no-comm).
inline constexpr const char* kRoundsGroup = "/rounds";
inline constexpr const char* kRoundsOrder = "/rounds/order";
inline constexpr const char* kCalibrationRoundsGroup = "/calibration_rounds";
enum class RoundsPhase { calibrate, measure };
const char* rounds_group(RoundsPhase phase);
std::string rounds_order_path(RoundsPhase phase);
enum class RoundKind { step, step_nocomm, replay };
// {rounds group}/{step|step_nocomm|replay}/k{K}/b{B}_c{C}
std::string round_condition_path(RoundKind kind, int k, int batch, int context,
                                 RoundsPhase phase = RoundsPhase::measure);
// Datasets of a round condition: `{round_condition_path}/{name}`.
namespace round_dataset {
inline constexpr const char* t_rank_us = "t_rank_us";  // (rounds × iterations × ranks) every world rank's own step time
inline constexpr const char* t_host_us = "t_host_us";  // (rounds × iterations × ranks) replay anchors only
// (rounds × iterations × ranks) TP-k steps, k > 1: each world rank's time inside the step's collectives
// (t_ar_insitu_us + t_ag_insitu_us), where the timed iterations themselves recorded it (absent otherwise)
inline constexpr const char* t_collective_insitu_us = "t_collective_insitu_us";
}  // namespace round_dataset
namespace visit_dataset {
inline constexpr const char* condition = "condition";              // index into /rounds conditions
inline constexpr const char* round = "round";                      // 0-based
inline constexpr const char* execution_index = "execution_index";  // 0-based over the whole study
inline constexpr const char* start_unix_us = "start_unix_us";      // wall clock at the visit's start
inline constexpr const char* duration_us = "duration_us";          // the visit, warm-up and gather included
inline constexpr const char* steal_pct = "steal_pct";              // host steal time during the visit (/proc/stat)
inline constexpr const char* load_avg_1m = "load_avg_1m";          // /proc/loadavg after the visit
}  // namespace visit_dataset
std::string visit_dataset_path(const char* dataset, RoundsPhase phase = RoundsPhase::measure);
// The study's decision (results/decision_file.hpp): /decision, one group per
// k with its capacity per context, one group per (k, batch, context) row, and
// under --tpot-slo one group per context with the choice.
inline constexpr const char* kDecisionGroup = "/decision";
std::string decision_degree_path(int k);
std::string decision_row_path(int k, std::int64_t batch, int context);
std::string decision_choice_path(int context);

// /verdict/{form}/k{K}: the point rule's datasets (results/study_file.hpp)
// and, for a study measured in rounds, the decision's attributes, with the
// controls and straggler terms on /verdict (results/round_verdict_file.hpp).
inline constexpr const char* kVerdictGroup = "/verdict";
std::string verdict_group_path(std::string_view form, int k);

// The schema as path patterns, as docs/RESULTS_FORMAT.md tables them
// (results_format_test holds the page to them): every dataset, and every group
// (the datasets' parents and the groups that hold attributes only). {K} {B}
// {C} {N} stand for integers; {step} {sweep} {rounds} {kind} {mode} {impl}
// for one of their roots or names; {form} {name} for a lowercase word. Below
// an ablation root (/ablation/{impl}) its sweeps, steps and registration
// repeat the root's layout.
const std::vector<std::string>& schema_dataset_patterns();
const std::vector<std::string>& schema_group_patterns();

// Whether the schema names `path` (a group when `is_group`, else a dataset).
bool schema_names(const std::string& path, bool is_group);

}  // namespace tpb
