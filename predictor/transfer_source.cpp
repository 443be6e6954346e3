#include "predictor/transfer_source.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "predictor/json_field.hpp"
#include "predictor/sha256.hpp"

namespace tpb {
namespace {

using nlohmann::ordered_json;

// This document's fields (json_field.hpp).
constexpr const char* kWhere = "registration: transfer";
template <typename T>
T field(const ordered_json& object, const char* name) { return json_field<T>(object, name, kWhere); }
const ordered_json& section(const ordered_json& object, const char* name) { return json_section(object, name, kWhere); }

PhaseClassFit parse_class_fit(const ordered_json& c) {
  PhaseClassFit fit;
  fit.phase_class = parse_phase_class(field<std::string>(c, "class"));
  fit.alpha_us = field<double>(c, "alpha_us");
  fit.beta_GBps = c.contains("beta_GBps") && c.at("beta_GBps").is_null() ? std::numeric_limits<double>::infinity()
                                                                          : field<double>(c, "beta_GBps");
  fit.gamma_identified = field<bool>(c, "gamma_identified");
  // JSON has no infinity: an unidentified γ is written as null.
  fit.gamma_GFLOPs = fit.gamma_identified ? field<double>(c, "gamma_GFLOPs") : std::numeric_limits<double>::infinity();
  fit.r2 = field<double>(c, "r2");
  for (const auto& p : section(c, "points")) {
    fit.points.push_back({field<std::string>(p, "phase"), field<int>(p, "k"), field<int>(p, "batch"),
                          field<int>(p, "context"), field<double>(p, "intervals"), field<double>(p, "bytes"),
                          field<double>(p, "flops"), field<double>(p, "time_us")});
    fit.residual_us.push_back(field<double>(p, "residual_us"));
  }
  return fit;
}

ordered_json phase_cost_fit_json(const PhaseCostFit& fit) {
  ordered_json classes = ordered_json::array();
  for (const PhaseClassFit& c : fit.classes) {
    ordered_json points = ordered_json::array();
    for (std::size_t i = 0; i < c.points.size(); ++i) {
      const PhaseObservation& p = c.points[i];
      points.push_back({{"phase", p.phase},     {"k", p.k},         {"batch", p.batch},
                        {"context", p.context}, {"intervals", p.intervals}, {"bytes", p.bytes},
                        {"flops", p.flops},     {"time_us", p.time_us}, {"residual_us", c.residual_us[i]}});
    }
    classes.push_back({{"class", to_string(c.phase_class)},
                       {"equation", "intervals*alpha + max(bytes/beta, flops/gamma)"},
                       {"alpha_us", c.alpha_us},
                       // JSON has no infinity: times that do not grow with bytes are written as null.
                       {"beta_GBps", std::isfinite(c.beta_GBps) ? ordered_json(c.beta_GBps) : ordered_json(nullptr)},
                       {"gamma_GFLOPs", c.gamma_identified ? ordered_json(c.gamma_GFLOPs) : ordered_json(nullptr)},
                       {"gamma_identified", c.gamma_identified},
                       {"r2", c.r2},
                       {"points", points}});
  }
  return classes;
}

}  // namespace

std::string describe(const MachineIdentity& m) {
  return fmt::format("CPU '{}', {} cores, backend {}, collective {}", m.cpu_model, m.cpu_cores, m.backend,
                     m.collective);
}

double TransferCell::compute_us() const {
  double sum = 0;
  for (const auto& [phase, us] : phase_us) sum += us;
  return sum;
}

std::string phase_cost_fit_sha256(const PhaseCostFit& fit) { return sha256_hex(phase_cost_fit_json(fit).dump()); }

ordered_json transfer_source_json(const TransferSource& s) {
  ordered_json cells = ordered_json::array();
  for (const TransferCell& cell : s.cells) {
    ordered_json phases = ordered_json::object();
    for (const auto& [phase, us] : cell.phase_us) phases[phase] = us;
    ordered_json c = {{"k", cell.k}, {"batch", cell.batch}, {"context", cell.context}, {"phase_us", phases}};
    if (cell.experts)
      c["experts"] = {{"recorded_per_layer", cell.experts->recorded_per_layer},
                      {"modelled_per_layer", cell.experts->modelled_per_layer},
                      {"label", "MODELLED: E*(1-(1-top/E)^b), uniform routing"},
                      {"modelled_compute_us", cell.experts->modelled_compute_us}};
    cells.push_back(std::move(c));
  }
  return {{"label", "calibrated on A"},
          {"results_file", s.results_file},
          {"model", s.model},
          {"machine",
           {{"cpu_model", s.machine.cpu_model},
            {"cpu_cores", s.machine.cpu_cores},
            {"backend", s.machine.backend},
            {"collective", s.machine.collective}}},
          {"grid", {{"batch", s.batch}, {"context", s.context}}},
          {"datasets", s.datasets},
          {"datasets_sha256", s.datasets_sha256},
          {"fit", phase_cost_fit_json(s.fit)},
          {"fit_sha256", s.fit_sha256},
          {"cells", cells}};
}

TransferSource parse_transfer_source(const ordered_json& j) {
  TransferSource s;
  s.results_file = field<std::string>(j, "results_file");
  s.model = field<std::string>(j, "model");
  const auto& m = section(j, "machine");
  s.machine = {field<std::string>(m, "cpu_model"), field<int>(m, "cpu_cores"), field<std::string>(m, "backend"),
               field<std::string>(m, "collective")};
  const auto& g = section(j, "grid");
  s.batch = field<std::vector<int>>(g, "batch");
  s.context = field<std::vector<int>>(g, "context");
  s.datasets = field<std::vector<std::string>>(j, "datasets");
  s.datasets_sha256 = field<std::string>(j, "datasets_sha256");
  for (const auto& c : section(j, "fit")) s.fit.classes.push_back(parse_class_fit(c));
  s.fit_sha256 = field<std::string>(j, "fit_sha256");
  // The registration's own digest covers this text; the fit's digest also
  // catches an edit whose author re-sealed the registration around it.
  if (const std::string again = phase_cost_fit_sha256(s.fit); again != s.fit_sha256)
    throw UsageError(fmt::format("registration: transfer: the fit from '{}' hashes to {}, not its sealed fit_sha256 "
                                 "{}: it changed after registration",
                                 s.results_file, again, s.fit_sha256));
  for (const auto& c : section(j, "cells")) {
    TransferCell cell{field<int>(c, "k"), field<int>(c, "batch"), field<int>(c, "context"), {}, std::nullopt};
    for (const auto& [phase, us] : section(c, "phase_us").items()) cell.phase_us.emplace_back(phase, us.get<double>());
    if (c.contains("experts")) {
      const auto& e = section(c, "experts");
      cell.experts = TransferCell::Experts{field<double>(e, "recorded_per_layer"),
                                           field<double>(e, "modelled_per_layer"),
                                           field<double>(e, "modelled_compute_us")};
    }
    s.cells.push_back(std::move(cell));
  }
  return s;
}

const TransferCell& find_transfer_cell(const TransferSource& source, int k, int batch, int context) {
  for (const TransferCell& cell : source.cells)
    if (cell.k == k && cell.batch == batch && cell.context == context) return cell;
  throw_error("tpbench", 1, fmt::format("no transfer cell registered for k={} b={} c={}", k, batch, context),
              __FILE__, __LINE__);
}

}  // namespace tpb
