#include "mpi_bench/pipeline/decision_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "common/parse.hpp"
#include "mpi_bench/checked_option.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {

void add_decision_flags(CLI::App& app, DecisionFlags& f) {
  app.add_option("--tpot-slo", f.tpot_slo,
                 "TPOT objective in ms: the Decision names the k with the most tokens/s per device within it");
  app.add_option("--predict-tp", f.predict_tp,
                 "TP degrees not measured (e.g. 4,8): replayed on one rank, given as MODELLED figures");
}

DecisionDeclaration parse_decision_flags(const DecisionFlags& f, const std::vector<int>& measured_tp) {
  DecisionDeclaration d;
  if (!f.tpot_slo.empty()) {
    const std::optional<double> value = whole_number(f.tpot_slo);
    if (!value || !std::isfinite(*value) || *value <= 0)
      throw UsageError(fmt::format("--tpot-slo: invalid value '{}' (expected a positive number of milliseconds, "
                                   "e.g. 50)",
                                   f.tpot_slo));
    d.tpot_slo_ms = *value;
  }
  if (!f.predict_tp.empty()) {
    d.predict_tp = parse_int_list("--predict-tp", f.predict_tp, 1);
    if (std::none_of(measured_tp.begin(), measured_tp.end(), [](int k) { return k > 1; }))
      throw UsageError(fmt::format("--predict-tp: invalid value '{}' (its collective terms are scaled from a "
                                   "measured degree: --tp must include one above 1)",
                                   f.predict_tp));
    for (int k : d.predict_tp)
      if (std::find(measured_tp.begin(), measured_tp.end(), k) != measured_tp.end())
        throw UsageError(fmt::format("--predict-tp: invalid value '{}' ({} is measured by --tp; list degrees "
                                     "that are not measured)",
                                     f.predict_tp, k));
  }
  return d;
}

void check_predicted_degrees(const ModelConfig& config, const DecisionDeclaration& declaration) {
  for (int k : declaration.predict_tp) {
    const std::string problem = shard_plan_problem(config, k);
    if (!problem.empty()) throw UsageError(fmt::format("--predict-tp: {}", problem));
  }
}

}  // namespace tpb
