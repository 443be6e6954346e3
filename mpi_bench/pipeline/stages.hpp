#pragma once
// The study's stages, in the order `mpi_bench run` chains them. Each reads and
// writes the same results file, so each is also its own subcommand.
//   calibrate: TP-1 step with collectives ablated, shard replay for each k,
//              all-reduce and all-gather sweeps around the step's payloads
//   register:  predictions.json from calibration data only, sealed with SHA-256
//   measure:   randomized interleaved rounds of the TP-k steps, their --no-comm
//              ablation, the calibration anchors and the same-node control
//   verdict:   per (form, k) the decision over rounds under the sealed rule and its
//              controls, with the term the rounds localize
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mpi_bench/pipeline/study_runtime.hpp"
#include "predictor/outside_form.hpp"
#include "predictor/round_evaluation.hpp"
#include "predictor/study_design.hpp"
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
// `transfer_from`: another model's calibrated study, whose fitted phase costs
// register the `transfer` form beside the study's own (transfer_calibration.hpp).
// `campaign_sha256`: a campaign's launch seals its campaign's digest (none when empty).
// `outside_forms`: read from --form before calibration, sealed beside the built-in forms.
PreregRecord register_stage(H5File& file, double kill_switch_pct, const std::string& predictions_dir,
                            const std::string& transfer_from = {}, const std::string& campaign_sha256 = {},
                            const std::vector<OutsideForm>& outside_forms = {});

// The sealed round plan in one line (round_plan_line), or empty when the
// registration has none: printed before measuring, so a budget too small for
// the kill switch is said before it is spent.
std::string planned_rounds_line(const PreregRecord& record);

// Writes `text` to `path` whole, through a temporary file beside it: a reader
// of PATH never sees half of it. UsageError "OPTION: cannot write 'PATH'"
// (`option`: what named the place) when it cannot.
void write_text_file(const std::string& path, const std::string& text, std::string_view option = "-o");

// `text` sealed in `dir`: written to NAME and its SHA-256 to NAME.sha256
// (sha256sum -c format). Returns the digest.
std::string write_sealed_text(const std::string& dir, const std::string& name, const std::string& text,
                              std::string_view option = "-o");

// Collective. Refuses (UsageError on every rank) without an intact
// registration; stamps /step with the registration hash and its start time
// before the first TP-k step.
void measure_stage(StudyRuntime& runtime, ResultsFile* file);

// What the verdict stage found: the single-pass point rule per (form, k)
// (the verdict of a file without rounds; a description of the first round's
// points otherwise) and, for a study measured in rounds, the decision under
// the sealed rule with its controls, and where each world rank ran ("host H,
// device D", from /meta) to name a systematically slower one.
struct StudyVerdict {
  std::vector<FormDegreeResult> point;
  std::optional<RoundsEvaluation> rounds;
  Grid grid;                  // the registered grid the rounds were judged on
  std::string stop_reason;    // why the rounds ended before N; empty when all ran
  std::vector<std::string> rank_placements;
};

// Rank 0, file only. Refuses (UsageError naming what does not match) when
// the registration is missing, its text no longer matches its SHA-256, the
// measurement ran under another registration, the registration is newer than
// the measurement, the calibration data changed since registration, or a
// claim (kill switch, rounds, time budget, seed, α) differs from the sealed design.
StudyVerdict verdict_stage(H5File& file, const DesignClaims& claims);

// The checks verdict_stage makes before it writes anything, on a file open
// for reading: a refusal leaves the file as it was. Returns the registration.
Registration judgeable_registration(const H5File& file, const DesignClaims& claims);

}  // namespace tpb

namespace tpb {

// The verdict table rank 0 prints: for a study measured in rounds the
// controls, one line per (form, k), any systematic-imbalance warning, and last
// the answer per TP degree in one line each; for a file without rounds the
// point rule's table.
std::string verdict_summary(const StudyVerdict& verdict);

}  // namespace tpb
