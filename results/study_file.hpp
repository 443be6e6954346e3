#pragma once
// The study's part of the results file: the declared workload (/study), the
// registration (/prereg), the measurement stamp, the reduced measurements the
// verdict judges, and the verdicts (/verdict). Step points are written by
// step_point.hpp. Writers run on rank 0; readers turn
// raw datasets into the plain structs the predictor judges.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "predictor/registration.hpp"
#include "predictor/study_evaluation.hpp"
#include "results/h5_file.hpp"
#include "results/layout.hpp"

namespace tpb {

// The workload and grid declared at calibration, stored as /study attributes.
void write_study_declaration(H5File& file, const Workload& workload, const Grid& grid);
void read_study_declaration(const H5File& file, Workload* workload, Grid* grid);  // UsageError when absent

// How calibration ran and the rounds it declares (register seals rounds and
// time_budget_s), with the memory budget the study runs under, stored beside
// the declaration in /study so that a later `verdict` decides under the same
// budget. A file calibrated by an older tpbench holds no collective (read as
// empty) and no memory budget.
struct StudyDesign {
  int sweep_iters = 0;
  int calibration_rounds = 0;
  std::string collective;
  std::string calibrated_at;
  int rounds = 0;
  double time_budget_s = 0;
  std::optional<std::int64_t> memory_budget_bytes;
  std::string memory_budget_source;
};
void write_study_design(H5File& file, const StudyDesign& design);
StudyDesign read_study_design(const H5File& file);  // after read_study_declaration

// /prereg: the registration text, its SHA-256 and its timestamp; `under`: an
// ablation root (layout.hpp), or the file's root when empty.
struct PreregRecord {
  std::string text;
  std::string sha256;
  std::string registered_at;
};
void write_prereg(H5File& file, const PreregRecord& record, std::string_view under = {});
bool has_prereg(const H5File& file, std::string_view under = {});
PreregRecord read_prereg(const H5File& file, std::string_view under = {});  // UsageError when absent

// What the measure stage records about itself: the registration hash it ran
// under, and when it started (UTC, microseconds).
struct MeasurementStamp {
  std::string prereg_sha256;
  std::string started_at;
};
void write_measurement_stamp(H5File& file, const MeasurementStamp& stamp, std::string_view under = {});
bool has_measurement(const H5File& file);
MeasurementStamp read_measurement_stamp(const H5File& file);

// SHA-256 over the named datasets: each path, its shape and its raw
// little-endian doubles, in the given order. Seals the calibration inputs.
std::string datasets_sha256(const H5File& file, const std::vector<std::string>& dataset_paths);

// Median over iterations of the slowest rank of group 0 in one dataset of a
// step point (t_step_us or t_host_us).
double slowest_rank_median(const H5File& file, const std::string& point_path, const char* dataset);

// Every grid cell of the TP-k measurement, reduced for the verdict. `under`:
// an ablation root (layout.hpp), or the file's root when empty. The compute
// term is always the study's own TP-k --no-comm steps: they run no
// collective, so it is the same for every implementation.
std::vector<MeasuredCell> read_measured_cells(const H5File& file, const Grid& grid, std::string_view under = {});

// Sweep medians (slowest rank per iteration, then median) per size of one k.
struct SweepMedians {
  std::vector<double> bytes;
  std::vector<double> time_us;
};
// `under`: an ablation root (layout.hpp), or the file's root when empty.
SweepMedians read_sweep_medians(const H5File& file, SweepRoot root, int k, std::string_view under = {});

// /verdict: one group per (form, k) with the first round's per-cell comparison,
// described by the point rule (point_verdict, point_mape_pct); decides nothing.
void write_verdicts(H5File& file, const std::vector<FormDegreeResult>& results, const std::string& prereg_sha256);

// A UTC timestamp with microseconds: "2026-11-30T04:15:00.123456Z" (sorts as text).
std::string utc_timestamp_us();

}  // namespace tpb
