#include "mpi_bench/pipeline/transfer_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "common/choices.hpp"
#include "common/error.hpp"
#include "common/samples.hpp"
#include "predictor/phase_cost_fit.hpp"
#include "results/environment_file.hpp"
#include "results/layout.hpp"
#include "results/study_file.hpp"
#include "tp_decoder/memory_estimate.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/moe_routing.hpp"
#include "tp_decoder/phase_ledger.hpp"

namespace tpb {
namespace {

// One side of the transfer as its study file declares it.
struct Study {
  Workload workload;
  Grid grid;
  MachineIdentity machine;
  LedgerModel model;  // the layers the study ran
};

Study read_study(const H5File& file, const std::string& what) {
  if (!file.exists(kStudyGroup) || !file.exists(kConfigGroup))
    throw UsageError(fmt::format("--transfer-from: {} '{}' is not a calibrated study (no {})", what, file.path(),
                                 file.exists(kStudyGroup) ? kConfigGroup : kStudyGroup));
  Study s;
  read_study_declaration(file, &s.workload, &s.grid);
  const std::optional<HostCpu> cpu = read_host_cpu(file);
  if (!cpu)
    throw UsageError(fmt::format("--transfer-from: {} '{}' does not record its CPU model and core count in {}", what,
                                 file.path(), kMetaGroup));
  H5Handle study = file.open_object(kStudyGroup);
  s.machine = {cpu->model, cpu->cores, s.workload.backend, read_string_attribute(study.id(), "collective")};
  s.model = read_ledger_model(file, s.workload);
  return s;
}



// Each phase of a shard's ledger priced by its class's fit, in ledger order.
std::vector<std::pair<std::string, double>> priced_phases(const PhaseCostFit& fit, const PhaseLedger& ledger) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [phase, name] : kPhases) {
    const PhaseCost& cost = ledger[phase];
    const std::optional<PhaseClass> phase_class = phase_class_of(name);
    if (cost.intervals == 0 || !phase_class) continue;
    out.emplace_back(name, fit.of(*phase_class).predict_us(static_cast<double>(cost.intervals),
                                                           static_cast<double>(cost.bytes_read + cost.bytes_written),
                                                           static_cast<double>(cost.flops)));
  }
  return out;
}

double summed_us(const std::vector<std::pair<std::string, double>>& phases) {
  return std::accumulate(phases.begin(), phases.end(), 0.0,
                         [](double sum, const auto& phase) { return sum + phase.second; });
}

// A mixture-of-experts cell's counts: the recorded mean over layers, and the
// MODELLED one with the shard priced at it. The ledger counts whole experts,
// and an expert's bytes and flops are the same whichever it is, so the
// fractional count is priced between the whole counts either side of it.
template <class Price>
TransferCell::Experts modelled_experts(const ModelConfig& config, int batch, const std::vector<int>& recorded,
                                       const Price& price) {
  const double modelled = modelled_distinct_experts(config.moe, batch);
  // Priced only at counts a step can touch: one sequence's top-k at least,
  // every sequence's (or every expert) at most.
  const int most = std::min(config.moe.num_experts, batch * config.moe.experts_per_token);
  const int below = std::clamp(static_cast<int>(std::floor(modelled)), config.moe.experts_per_token, most);
  const int above = std::min(below + 1, most);
  const double low_us = summed_us(price(std::vector<int>(recorded.size(), below)));
  const double high_us = summed_us(price(std::vector<int>(recorded.size(), above)));
  const double recorded_sum = std::accumulate(recorded.begin(), recorded.end(), 0.0);
  return {recorded_sum / static_cast<double>(recorded.size()), modelled,
          low_us + (high_us - low_us) * (modelled - below)};
}

// A's calibration points: TP-1 --no-comm and the shard replay of every
// degree, each a (k, b, c) shard timed phase by phase on every rank at once.
struct CalibrationPoint {
  std::string path;
  int k, batch, context;
};

std::vector<CalibrationPoint> calibration_points(const Grid& grid) {
  std::vector<CalibrationPoint> points;
  for (int b : grid.batch)
    for (int c : grid.context) {
      points.push_back({step_point_path(StepRoot::step_nocomm, 1, b, c), 1, b, c});
      for (int k : grid.tp) points.push_back({step_point_path(StepRoot::replay, k, b, c), k, b, c});
    }
  return points;
}

void check_same_machine(const Study& a, const Study& b, const std::string& a_path) {
  if (a.machine == b.machine) return;
  throw UsageError(fmt::format("--transfer-from: '{}' was calibrated on {}, this study runs on {}: a fit describes "
                               "one machine",
                               a_path, describe(a.machine), describe(b.machine)));
}

// Inside A's range of each grid axis: the fit is interpolated, never extrapolated.
void check_inside(const std::vector<int>& a, const std::vector<int>& b, const char* axis, const std::string& a_path) {
  const auto [lo, hi] = std::minmax_element(a.begin(), a.end());
  for (int value : b)
    if (value < *lo || value > *hi)
      throw UsageError(fmt::format("--transfer-from: {} {} lies outside the {} range {}..{} of '{}' (a fit is not "
                                   "extrapolated)",
                                   axis, value, axis, *lo, *hi, a_path));
}

}  // namespace

void precheck_transfer_source(const std::string& a_path, const Grid& b_grid, std::string_view b_backend,
                              std::string_view b_collective) {
  const Study a = read_study(open_input_file(a_path, "--transfer-from"), "A");
  if (a.machine.backend != b_backend || a.machine.collective != b_collective)
    throw UsageError(fmt::format("--transfer-from: '{}' was calibrated on backend {}, collective {}; this study runs "
                                 "backend {}, collective {}: a fit describes one machine",
                                 a_path, a.machine.backend, a.machine.collective, b_backend, b_collective));
  check_inside(a.grid.batch, b_grid.batch, "batch", a_path);
  check_inside(a.grid.context, b_grid.context, "context", a_path);
}

TransferSource calibrate_transfer(const H5File& b_file, const Registration& b_registration, const std::string& a_path) {
  const H5File a_file = open_input_file(a_path, "--transfer-from");
  const Study a = read_study(a_file, "A");
  const Study b = read_study(b_file, "B");
  check_same_machine(a, b, a_path);
  check_inside(a.grid.batch, b_registration.grid.batch, "batch", a_path);
  check_inside(a.grid.context, b_registration.grid.context, "context", a_path);

  TransferSource source;
  source.results_file = a_path;
  source.model = a.workload.model;
  source.machine = a.machine;
  source.batch = a.grid.batch;
  source.context = a.grid.context;
  std::vector<PhaseObservation> observations;
  for (const CalibrationPoint& p : calibration_points(a.grid)) {
    if (!a_file.exists(p.path))
      throw UsageError(fmt::format("--transfer-from: '{}' is not a calibrated study (no {})", a_path, p.path));
    const PhaseLedger ledger =
        phase_ledger(a.model.config, p.k, p.batch, p.context, a.model.types, false,
                     experts_touched(a_file, p.path, a.model.config));
    for (const auto& [phase, name] : kPhases) {
      const PhaseCost& cost = ledger[phase];
      if (cost.intervals == 0 || !phase_class_of(name)) continue;
      const std::string path = phase_dataset_path(p.path, name);
      if (!a_file.exists(path))
        throw UsageError(
            fmt::format("--transfer-from: '{}' has no phase timings (no {}): calibrate it on a backend that times "
                        "phases",
                        a_path, path));
      source.datasets.push_back(path);
      observations.push_back({name, p.k, p.batch, p.context, static_cast<double>(cost.intervals),
                              static_cast<double>(cost.bytes_read + cost.bytes_written),
                              static_cast<double>(cost.flops), median(a_file.read_doubles(path))});
    }
  }
  source.datasets_sha256 = datasets_sha256(a_file, source.datasets);
  source.fit = fit_phase_costs(observations);
  source.fit_sha256 = phase_cost_fit_sha256(source.fit);

  // B's cells, each phase of B's TP-k shard priced by its class's fit. A
  // mixture-of-experts B reads the experts its routing touched, recorded at
  // B's own replay of the cell: routing is fixed per point and no timing.
  for (int k : b_registration.grid.tp)
    for (int batch : b_registration.grid.batch)
      for (int context : b_registration.grid.context) {
        const std::string point = step_point_path(StepRoot::replay, k, batch, context);
        const std::vector<int> recorded = experts_touched(b_file, point, b.model.config);
        const auto price = [&](const std::vector<int>& experts) {
          return priced_phases(source.fit,
                               phase_ledger(b.model.config, k, batch, context, b.model.types, false, experts));
        };
        TransferCell cell{k, batch, context, price(recorded), std::nullopt};
        if (b.model.config.is_moe()) cell.experts = modelled_experts(b.model.config, batch, recorded, price);
        source.cells.push_back(std::move(cell));
      }
  return source;
}

LedgerModel read_ledger_model(const H5File& file, const Workload& w) {
  H5Handle config = file.open_object(kConfigGroup);
  return {with_layers(parse_model_config(read_string_attribute(config.id(), "json"), w.model), w.layers),
          backend_memory_types(parse_backend_kind("registered backend", w.backend))};
}

std::vector<int> experts_touched(const H5File& file, const std::string& point, const ModelConfig& config) {
  if (!config.is_moe()) return {};
  const std::string path = step_dataset_path(point, step_dataset::experts_touched);
  if (!file.exists(path))
    throw UsageError(fmt::format("'{}' has no {} for its mixture-of-experts ledger", file.path(), path));
  std::vector<std::uint64_t> dims;
  const std::vector<std::int64_t> touched = file.read_integers(path, &dims);
  std::vector<int> per_layer;
  for (std::uint64_t layer = 0; layer < dims.at(0); ++layer)
    per_layer.push_back(static_cast<int>(std::count(touched.begin() + static_cast<std::ptrdiff_t>(layer * dims.at(1)),
                                                    touched.begin() + static_cast<std::ptrdiff_t>((layer + 1) * dims.at(1)),
                                                    std::int64_t{1})));
  return per_layer;
}

}  // namespace tpb
