#include "results/study_file.hpp"

#include <fmt/format.h>
#include <sys/time.h>

#include <ctime>

#include "common/error.hpp"
#include "predictor/sha256.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
namespace {

constexpr const char* kStudy = "/study";
constexpr const char* kPrereg = "/prereg";
constexpr const char* kStep = "/step";

std::vector<int> read_int_list(hid_t object, const std::string& name) {
  std::vector<int> out;
  for (double v : read_double_list_attribute(object, name)) out.push_back(static_cast<int>(v));
  return out;
}

std::vector<double> as_doubles(const std::vector<int>& values) { return {values.begin(), values.end()}; }

std::vector<double> slowest_per_iteration(const H5File& file, const std::string& path) {
  std::vector<std::uint64_t> dims;
  const std::vector<double> values = file.read_doubles(path, &dims);
  TPB_CHECK(dims.size() == 2, fmt::format("{}: expected iterations × ranks, found {} dimensions", path, dims.size()));
  return slowest_rank_per_iteration(values, dims[1]);
}

// Median over iterations of the slowest rank's time in the step's
// collectives (all-reduces plus the logits all-gather, as far as measured).
double collective_median_us(const H5File& file, const std::string& point_path) {
  std::vector<std::uint64_t> dims;
  std::vector<double> total;
  for (const char* name : {"/t_ar_insitu_us", "/t_ag_insitu_us"}) {
    if (!file.exists(point_path + name)) continue;
    const std::vector<double> values = file.read_doubles(point_path + name, &dims);
    if (total.empty()) total.assign(values.size(), 0.0);
    for (std::size_t i = 0; i < values.size(); ++i) total[i] += values[i];
  }
  if (total.empty()) return 0.0;  // nothing measured: the term is reported as 0, and the report says so
  return median(slowest_rank_per_iteration(total, dims[1]));
}

}  // namespace

std::string step_point_path(const std::string& root, int k, int batch, int context) {
  return fmt::format("{}/k{}/b{}_c{}", root, k, batch, context);
}

void write_step_samples(H5File& file, const std::string& point_path, const StepSamples& s) {
  const std::vector<std::uint64_t> dims{static_cast<std::uint64_t>(s.iters), static_cast<std::uint64_t>(s.ranks)};
  file.write_dataset(point_path + "/t_step_us", s.t_step_us, dims);
  file.write_dataset(point_path + "/t_host_us", s.t_host_us, dims);
  if (!s.t_ar_insitu_us.empty()) file.write_dataset(point_path + "/t_ar_insitu_us", s.t_ar_insitu_us, dims);
  if (!s.t_ag_insitu_us.empty()) file.write_dataset(point_path + "/t_ag_insitu_us", s.t_ag_insitu_us, dims);
  file.flush();
}

StepSamples read_step_samples(const H5File& file, const std::string& point_path) {
  StepSamples s;
  std::vector<std::uint64_t> dims;
  s.t_step_us = file.read_doubles(point_path + "/t_step_us", &dims);
  TPB_CHECK(dims.size() == 2, fmt::format("{}/t_step_us is not iterations × ranks", point_path));
  s.iters = static_cast<int>(dims[0]);
  s.ranks = static_cast<int>(dims[1]);
  s.t_host_us = file.read_doubles(point_path + "/t_host_us");
  if (file.exists(point_path + "/t_ar_insitu_us")) s.t_ar_insitu_us = file.read_doubles(point_path + "/t_ar_insitu_us");
  if (file.exists(point_path + "/t_ag_insitu_us")) s.t_ag_insitu_us = file.read_doubles(point_path + "/t_ag_insitu_us");
  return s;
}

void write_study_declaration(H5File& file, const Workload& w, const Grid& grid) {
  H5Handle group = file.group(kStudy);
  const hid_t id = group.id();
  write_attribute(id, "model", w.model);
  write_attribute(id, "config_path", w.config_path);
  write_attribute(id, "config_sha256", w.config_sha256);
  write_attribute(id, "layers", std::int64_t{w.layers});
  write_attribute(id, "hidden_size", std::int64_t{w.hidden_size});
  write_attribute(id, "vocab_size", std::int64_t{w.vocab_size});
  write_attribute(id, "bytes_per_element", std::int64_t{w.bytes_per_element});
  write_attribute(id, "backend", w.backend);
  write_attribute(id, "warmup_iters", std::int64_t{w.warmup_iters});
  write_attribute(id, "iters", std::int64_t{w.iters});
  write_attribute(id, "bootstrap_seed", static_cast<std::int64_t>(w.bootstrap_seed));
  write_attribute(id, "bootstrap_resamples", std::int64_t{w.bootstrap_resamples});
  write_attribute(id, "tp", as_doubles(grid.tp));
  write_attribute(id, "batch", as_doubles(grid.batch));
  write_attribute(id, "context", as_doubles(grid.context));
  file.flush();
}

void read_study_declaration(const H5File& file, Workload* w, Grid* grid) {
  if (!file.exists(kStudy))
    throw UsageError(fmt::format("FILE: '{}' holds no study (/study is missing): run 'mpi_bench calibrate' first",
                                 file.path()));
  H5Handle group = file.open_object(kStudy);
  const hid_t id = group.id();
  w->model = read_string_attribute(id, "model");
  w->config_path = read_string_attribute(id, "config_path");
  w->config_sha256 = read_string_attribute(id, "config_sha256");
  w->layers = static_cast<int>(read_integer_attribute(id, "layers"));
  w->hidden_size = static_cast<int>(read_integer_attribute(id, "hidden_size"));
  w->vocab_size = static_cast<int>(read_integer_attribute(id, "vocab_size"));
  w->bytes_per_element = static_cast<int>(read_integer_attribute(id, "bytes_per_element"));
  w->backend = read_string_attribute(id, "backend");
  w->warmup_iters = static_cast<int>(read_integer_attribute(id, "warmup_iters"));
  w->iters = static_cast<int>(read_integer_attribute(id, "iters"));
  w->bootstrap_seed = static_cast<std::uint64_t>(read_integer_attribute(id, "bootstrap_seed"));
  w->bootstrap_resamples = static_cast<int>(read_integer_attribute(id, "bootstrap_resamples"));
  grid->tp = read_int_list(id, "tp");
  grid->batch = read_int_list(id, "batch");
  grid->context = read_int_list(id, "context");
}

void write_prereg(H5File& file, const PreregRecord& record) {
  file.write_strings(std::string(kPrereg) + "/predictions_json", {record.text});
  H5Handle group = file.group(kPrereg);
  write_attribute(group.id(), "sha256", record.sha256);
  write_attribute(group.id(), "registered_at", record.registered_at);
  file.flush();
}

bool has_prereg(const H5File& file) { return file.exists(std::string(kPrereg) + "/predictions_json"); }

PreregRecord read_prereg(const H5File& file) {
  if (!has_prereg(file))
    throw UsageError(fmt::format("FILE: '{}' holds no registration (/prereg is missing): run 'mpi_bench register' "
                                 "before measuring or judging",
                                 file.path()));
  PreregRecord record;
  const auto texts = file.read_strings(std::string(kPrereg) + "/predictions_json");
  TPB_CHECK(texts.size() == 1, "/prereg/predictions_json must hold exactly one text");
  record.text = texts.front();
  H5Handle group = file.open_object(kPrereg);
  record.sha256 = read_string_attribute(group.id(), "sha256");
  record.registered_at = read_string_attribute(group.id(), "registered_at");
  return record;
}

void write_measurement_stamp(H5File& file, const MeasurementStamp& stamp) {
  H5Handle group = file.group(kStep);
  write_attribute(group.id(), "prereg_sha256", stamp.prereg_sha256);
  write_attribute(group.id(), "measure_started_at", stamp.started_at);
  file.flush();
}

bool has_measurement(const H5File& file) {
  if (!file.exists(kStep)) return false;
  H5Handle group = file.open_object(kStep);
  return has_attribute(group.id(), "measure_started_at");
}

MeasurementStamp read_measurement_stamp(const H5File& file) {
  if (!has_measurement(file))
    throw UsageError(fmt::format("FILE: '{}' holds no TP-k measurement (/step): run 'mpi_bench measure' first",
                                 file.path()));
  H5Handle group = file.open_object(kStep);
  return {read_string_attribute(group.id(), "prereg_sha256"), read_string_attribute(group.id(), "measure_started_at")};
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

double slowest_rank_median(const H5File& file, const std::string& dataset_path) {
  return median(slowest_per_iteration(file, dataset_path));
}

std::vector<MeasuredCell> read_measured_cells(const H5File& file, const Grid& grid) {
  std::vector<MeasuredCell> cells;
  for (int k : grid.tp)
    for (int b : grid.batch)
      for (int c : grid.context) {
        const std::string step = step_point_path("/step", k, b, c);
        const std::string nocomm = step_point_path("/step_nocomm", k, b, c);
        cells.push_back({k, b, c, slowest_per_iteration(file, step + "/t_step_us"),
                         slowest_rank_median(file, nocomm + "/t_step_us"), collective_median_us(file, step),
                         slowest_rank_median(file, step + "/t_host_us")});
      }
  return cells;
}

SweepMedians read_sweep_medians(const H5File& file, const std::string& sweep_root, int k) {
  const std::string group = fmt::format("{}/k{}", sweep_root, k);
  SweepMedians out;
  out.bytes = file.read_doubles(group + "/bytes");
  std::vector<std::uint64_t> dims;
  const std::vector<double> times = file.read_doubles(group + "/time_us", &dims);
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
    const std::string group_path = fmt::format("/verdict/{}/k{}", r.judgement.form, r.judgement.k);
    std::vector<double> batch, context, predicted, measured, ci_low, ci_high, error;
    std::vector<std::string> culprits;
    for (const auto& cell : r.cells) {
      const CellComparison& c = cell.comparison;
      batch.push_back(c.batch);
      context.push_back(c.context);
      predicted.push_back(c.predicted_us);
      measured.push_back(c.measured_us);
      ci_low.push_back(c.measured_ci.low);
      ci_high.push_back(c.measured_ci.high);
      error.push_back(c.signed_error_pct);
      culprits.push_back(fmt::format("{} {:+.1f} us ({:+.1f} %)", cell.culprit.term, cell.culprit.departure_us,
                                     cell.culprit.departure_pct));
    }
    const std::vector<std::uint64_t> dims{r.cells.size()};
    file.write_dataset(group_path + "/batch", batch, dims);
    file.write_dataset(group_path + "/context", context, dims);
    file.write_dataset(group_path + "/predicted_t_step_us", predicted, dims);
    file.write_dataset(group_path + "/measured_t_step_us", measured, dims);
    file.write_dataset(group_path + "/measured_ci_low_us", ci_low, dims);
    file.write_dataset(group_path + "/measured_ci_high_us", ci_high, dims);
    file.write_dataset(group_path + "/signed_error_pct", error, dims);
    file.write_strings(group_path + "/localizing_term", culprits);
    H5Handle group = file.group(group_path);
    write_attribute(group.id(), "mape_pct", r.judgement.mape_pct);
    write_attribute(group.id(), "kill_switch_pct", r.judgement.threshold_pct);
    write_attribute(group.id(), "verdict", std::string(to_string(r.judgement.verdict)));
    write_attribute(group.id(), "localizing_term", r.culprit.term);
    write_attribute(group.id(), "localizing_departure_us", r.culprit.departure_us);
    write_attribute(group.id(), "localizing_departure_pct", r.culprit.departure_pct);
  }
  H5Handle root = file.group("/verdict");
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
