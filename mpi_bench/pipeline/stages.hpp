#pragma once
// The study's stages, in the order `mpi_bench run` chains them. Each reads and
// writes the same results file, so each is also its own subcommand.
//   calibrate: TP-1 step with collectives ablated, shard replay for each k,
//              all-reduce and all-gather sweeps around the step's payloads
//   register:  predictions.json from calibration data only, sealed with SHA-256
//   measure:   TP-k steps for every k (and their --no-comm ablation), the same-node control
//   verdict:   per (form, k) MAPE, verdict and localizing term, under the registration
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mpi_bench/pipeline/study_runtime.hpp"
#include "predictor/study_evaluation.hpp"
#include "results/results_file.hpp"

namespace tpb {

// Collective. `file` is non-null on world rank 0 only.
void calibrate_stage(StudyRuntime& runtime, ResultsFile* file);

// Collective. The calibration's all-reduce and all-gather sweeps, around the
// step's payloads, of every k in `degrees` on `world`'s collective, written
// below `under` (an ablation root, or the file's root when empty).
void calibrate_collective_sweeps(StudyRuntime& runtime, ResultsFile* file, Communicator& world,
                                 const std::vector<int>& degrees, std::string_view under);

// Rank 0, file only. Writes predictions.json and predictions.json.sha256 into
// `predictions_dir` and /prereg into the file. UsageError when calibration
// data is missing or a registration already exists (a study registers once).
PreregRecord register_stage(H5File& file, double kill_switch_pct, const std::string& predictions_dir);

// Collective. Refuses (UsageError on every rank) without an intact
// registration; stamps /step with the registration hash and its start time
// before the first TP-k step.
void measure_stage(StudyRuntime& runtime, ResultsFile* file);

// Rank 0, file only. Refuses (UsageError naming what does not match) when
// the registration is missing, its text no longer matches its SHA-256, the
// measurement ran under another registration, the registration is newer than
// the measurement, the calibration data changed since registration, or
// `kill_switch_pct` differs from the registered threshold.
std::vector<FormDegreeResult> verdict_stage(H5File& file, std::optional<double> kill_switch_pct);

}  // namespace tpb

namespace tpb {

// The verdict table rank 0 prints: one line per (form, k).
std::string verdict_summary(const std::vector<FormDegreeResult>& results);

}  // namespace tpb
