#include "results/study_file.hpp"

#include <fmt/format.h>
#include <sys/time.h>

#include <ctime>

#include "common/error.hpp"
#include "predictor/sha256.hpp"
#include "predictor/statistics.hpp"
#include "results/attribute_fields.hpp"
#include "results/step_point.hpp"
#include "results/stored_lists.hpp"

namespace tpb {
namespace {

// /study: the declared workload and grid.
constexpr auto kWorkloadFields = [](auto& f, auto& w) {
  f("model", w.model);
  f("config_path", w.config_path);
  f("config_sha256", w.config_sha256);
  f("layers", w.layers);
  f("hidden_size", w.hidden_size);
  f("vocab_size", w.vocab_size);
  f("bytes_per_element", w.bytes_per_element);
  f("backend", w.backend);
  f("warmup_iters", w.warmup_iters);
  f("iters", w.iters);
  f("bootstrap_seed", w.bootstrap_seed);
  f("bootstrap_resamples", w.bootstrap_resamples);
};
constexpr auto kGridFields = [](auto& f, auto& g) {
  f("tp", g.tp);
  f("batch", g.batch);
  f("context", g.context);
};
// /study: how calibration ran and what the rounds may spend.
constexpr auto kDesignFields = [](auto& f, auto& d) {
  f("sweep_iters", d.sweep_iters);
  f("calibration_rounds", d.calibration_rounds);
  f.unless_empty("collective", d.collective);
  f("calibrated_at", d.calibrated_at);
  f("rounds", d.rounds);
  f("time_budget_s", d.time_budget_s);
  f("memory_budget_bytes", d.memory_budget_bytes);
  if (d.memory_budget_bytes) f("memory_budget_source", d.memory_budget_source);
};
// /prereg
constexpr auto kPreregFields = [](auto& f, auto& r) {
  f("sha256", r.sha256);
  f("registered_at", r.registered_at);
};
// The measurement stamp lives on the /step root group.
constexpr auto kStampFields = [](auto& f, auto& s) {
  f("prereg_sha256", s.prereg_sha256);
  f("measure_started_at", s.started_at);
};
const std::string kStepRoot = step_root_path(StepRoot::step);

}  // namespace

void write_study_declaration(H5File& file, const Workload& w, const Grid& grid) {
  H5Handle group = file.group(kStudyGroup);
  write_fields(group.id(), w, kWorkloadFields);
  write_fields(group.id(), grid, kGridFields);
  file.flush();
}

void read_study_declaration(const H5File& file, Workload* w, Grid* grid) {
  if (!file.exists(kStudyGroup))
    throw UsageError(fmt::format("FILE: '{}' holds no study (/study is missing): run 'mpi_bench calibrate' first",
                                 file.path()));
  H5Handle group = file.open_object(kStudyGroup);
  *w = read_fields<Workload>(group.id(), kWorkloadFields);
  *grid = read_fields<Grid>(group.id(), kGridFields);
}

void write_study_design(H5File& file, const StudyDesign& d) {
  H5Handle group = file.group(kStudyGroup);
  write_fields(group.id(), d, kDesignFields);
}

StudyDesign read_study_design(const H5File& file) {
  return read_fields<StudyDesign>(file.open_object(kStudyGroup).id(), kDesignFields);
}

void write_prereg(H5File& file, const PreregRecord& record, std::string_view under) {
  file.write_strings(std::string(under) + kPreregText, {record.text});
  H5Handle group = file.group(std::string(under) + kPreregGroup);
  write_fields(group.id(), record, kPreregFields);
  file.flush();
}

bool has_prereg(const H5File& file, std::string_view under) { return file.exists(std::string(under) + kPreregText); }

PreregRecord read_prereg(const H5File& file, std::string_view under) {
  if (!has_prereg(file, under))
    throw UsageError(fmt::format("FILE: '{}' holds no registration ({}{} is missing): run 'mpi_bench register' "
                                 "before measuring or judging",
                                 file.path(), under, kPreregGroup));
  const std::string text_path = std::string(under) + kPreregText;
  const auto texts = file.read_strings(text_path);
  TPB_CHECK(texts.size() == 1, fmt::format("{} must hold exactly one text", text_path));
  H5Handle group = file.open_object(std::string(under) + kPreregGroup);
  PreregRecord record = read_fields<PreregRecord>(group.id(), kPreregFields);
  record.text = texts.front();
  return record;
}

void write_measurement_stamp(H5File& file, const MeasurementStamp& stamp, std::string_view under) {
  H5Handle group = file.group(std::string(under) + kStepRoot);
  write_fields(group.id(), stamp, kStampFields);
  file.flush();
}

bool has_measurement(const H5File& file) {
  if (!file.exists(kStepRoot)) return false;
  H5Handle group = file.open_object(kStepRoot);
  return has_attribute(group.id(), "measure_started_at");
}

MeasurementStamp read_measurement_stamp(const H5File& file) {
  if (!has_measurement(file))
    throw UsageError(fmt::format("FILE: '{}' holds no TP-k measurement (/step): run 'mpi_bench measure' first",
                                 file.path()));
  H5Handle group = file.open_object(kStepRoot);
  return read_fields<MeasurementStamp>(group.id(), kStampFields);
}

std::string datasets_sha256(const H5File& file, const std::vector<std::string>& dataset_paths) {
  Sha256 digest;
  for (const auto& path : dataset_paths) {
    std::vector<std::uint64_t> dims;
    const std::vector<double> values = file.read_doubles(path, &dims);
    digest.update(path);
    digest.update("\n");
    for (auto d : dims) digest.update(fmt::format("{} ", d));
    digest.update("\n");
    digest.update(values.data(), values.size() * sizeof(double));
  }
  return digest.hex_digest();
}

double slowest_rank_median(const H5File& file, const std::string& point_path, const char* dataset) {
  return median(group0_slowest_per_iteration(file, point_path, dataset));
}

std::vector<MeasuredCell> read_measured_cells(const H5File& file, const Grid& grid, std::string_view under) {
  std::vector<MeasuredCell> cells;
  for (int k : grid.tp)
    for (int b : grid.batch)
      for (int c : grid.context) {
        const std::string step = std::string(under) + step_point_path(StepRoot::step, k, b, c);
        const std::string nocomm = step_point_path(StepRoot::step_nocomm, k, b, c);
        cells.push_back({k, b, c, group0_slowest_per_iteration(file, step, step_dataset::t_step_us),
                         slowest_rank_median(file, nocomm, step_dataset::t_step_us), collective_median_us(file, step),
                         slowest_rank_median(file, step, step_dataset::t_host_us)});
      }
  return cells;
}

SweepMedians read_sweep_medians(const H5File& file, SweepRoot root, int k, std::string_view under) {
  const std::string group = sweep_group_path(root, k, under);
  SweepMedians out;
  out.bytes = file.read_doubles(sweep_dataset_path(root, k, "bytes", under));
  std::vector<std::uint64_t> dims;
  const std::vector<double> times = file.read_doubles(sweep_dataset_path(root, k, "time_us", under), &dims);
  TPB_CHECK(dims.size() == 3 && dims[0] == out.bytes.size(),
            fmt::format("{}/time_us is not sizes × iterations × ranks", group));
  const std::size_t per_size = dims[1] * dims[2];
  for (std::size_t i = 0; i < dims[0]; ++i) {
    const std::span<const double> point(times.data() + i * per_size, per_size);
    out.time_us.push_back(median(slowest_rank_per_iteration(point, dims[2])));
  }
  return out;
}

void write_verdicts(H5File& file, const std::vector<FormDegreeResult>& results, const std::string& prereg_sha256) {
  for (const auto& r : results) {
    const std::string group_path = verdict_group_path(r.judgement.form, r.judgement.k);
    // Per cell, `figure` of its comparison, as the group's dataset `name`.
    const auto write = [&](const char* name, auto figure) {
      const auto value = [&](const FormCellResult& cell) -> double { return figure(cell.comparison); };
      file.write_dataset(group_path + "/" + name, column(r.cells, value), {r.cells.size()});
    };
    write("batch", [](const CellComparison& c) { return c.batch; });
    write("context", [](const CellComparison& c) { return c.context; });
    write("predicted_t_step_us", [](const CellComparison& c) { return c.predicted_us; });
    write("measured_t_step_us", [](const CellComparison& c) { return c.measured_us; });
    write("measured_ci_low_us", [](const CellComparison& c) { return c.measured_ci.low; });
    write("measured_ci_high_us", [](const CellComparison& c) { return c.measured_ci.high; });
    write("signed_error_pct", [](const CellComparison& c) { return c.signed_error_pct; });
    file.write_strings(group_path + "/localizing_term", column(r.cells, [](const FormCellResult& cell) {
                         return fmt::format("{} {:+.1f} us ({:+.1f} %)", cell.culprit.term, cell.culprit.departure_us,
                                            cell.culprit.departure_pct);
                       }));
    H5Handle group = file.group(group_path);
    // The first round's points described by the single-pass point rule; the
    // verdict (`verdict`, `mape_pct`) is the rounds' (round_verdict_file.hpp).
    write_attributes(group.id(), {{"point_mape_pct", r.judgement.mape_pct},
                                  {"point_kill_switch_pct", r.judgement.threshold_pct},
                                  {"point_verdict", std::string(to_string(r.judgement.verdict))},
                                  {"localizing_term", r.culprit.term},
                                  {"localizing_departure_us", r.culprit.departure_us},
                                  {"localizing_departure_pct", r.culprit.departure_pct}});
  }
  H5Handle root = file.group(kVerdictGroup);
  write_attribute(root.id(), "prereg_sha256", prereg_sha256);
  write_attribute(root.id(), "judged_at", utc_timestamp_us());
  file.flush();
}

std::string utc_timestamp_us() {
  timeval now{};
  gettimeofday(&now, nullptr);
  std::tm utc{};
  gmtime_r(&now.tv_sec, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  return fmt::format("{}.{:06d}Z", text, static_cast<int>(now.tv_usec));
}

}  // namespace tpb
