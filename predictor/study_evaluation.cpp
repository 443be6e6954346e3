#include "predictor/study_evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"
#include "predictor/model_forms.hpp"

namespace tpb {
namespace {

const MeasuredCell& find_measured(const std::vector<MeasuredCell>& measured, int k, int batch, int context) {
  for (const auto& cell : measured)
    if (cell.k == k && cell.batch == batch && cell.context == context) return cell;
  throw_error("tpbench", 1, fmt::format("no measurement for k={} b={} c={}", k, batch, context), __FILE__, __LINE__);
}

// The mean over the grid's (b, c) cells at k of `cell_us(b, c)`.
template <typename CellUs>
double grid_mean(const Registration& r, CellUs cell_us) {
  double sum = 0;
  int n = 0;
  for (int b : r.grid.batch)
    for (int c : r.grid.context) {
      sum += cell_us(b, c);
      ++n;
    }
  return sum / n;
}

double grid_mean_measured(const Registration& r, const std::vector<MeasuredCell>& measured, int k) {
  return grid_mean(r, [&](int b, int c) { return median(find_measured(measured, k, b, c).t_step_us); });
}

double grid_mean_predicted(const Registration& r, std::string_view form, int k) {
  return grid_mean(r, [&](int b, int c) { return find_prediction(r.predictions, form, k, b, c).prediction.t_step_us; });
}

}  // namespace

std::optional<double> exposed_host_us(const MeasuredCell& m) {
  if (!m.collective_us) return std::nullopt;
  return std::max(0.0, m.host_us - m.compute_us - *m.collective_us);
}

std::vector<TermComparison> compare_terms(const MeasuredCell& m, const TermShares& predicted) {
  if (!m.collective_us) return {{"compute", m.compute_us, predicted.compute_us}};
  return {{"compute", m.compute_us, predicted.compute_us},
          {"collective", *m.collective_us, predicted.collective_us},
          {"host", *exposed_host_us(m), predicted.host_us}};
}

BootstrapOptions registered_bootstrap(const Registration& r) {
  return {0.95, r.workload.bootstrap_resamples, r.workload.bootstrap_seed};
}

std::vector<FormDegreeResult> evaluate_study(const Registration& r, const std::vector<MeasuredCell>& measured,
                                             const BootstrapOptions& bootstrap) {
  std::vector<FormDegreeResult> results;
  for (const auto& form : judged_forms(r)) {
    for (int k : r.grid.tp) {
      FormDegreeResult result;
      std::vector<CellComparison> comparisons;
      std::vector<TermComparison> term_sums;  // summed over the grid, then averaged
      double measured_sum_us = 0;
      for (int b : r.grid.batch)
        for (int c : r.grid.context) {
          const MeasuredCell& m = find_measured(measured, k, b, c);
          const CellPrediction& p = find_prediction(r.predictions, form.name, k, b, c);
          const double measured_us = median(m.t_step_us);
          const CellComparison comparison{b,
                                          c,
                                          p.prediction.t_step_us,
                                          measured_us,
                                          bootstrap_median_ci(m.t_step_us, bootstrap),
                                          signed_error_pct(p.prediction.t_step_us, measured_us)};
          comparisons.push_back(comparison);
          const std::vector<TermComparison> terms = compare_terms(m, p.prediction.terms);
          result.cells.push_back({comparison, localize(terms, measured_us)});
          if (term_sums.empty()) {
            term_sums = terms;
          } else {
            TPB_CHECK(terms.size() == term_sums.size(),
                      fmt::format("TP-{}: the collective term was measured at some cells and not at others", k));
            for (std::size_t t = 0; t < terms.size(); ++t) {
              term_sums[t].measured_us += terms[t].measured_us;
              term_sums[t].predicted_us += terms[t].predicted_us;
            }
          }
          measured_sum_us += measured_us;
        }
      const double n = static_cast<double>(comparisons.size());
      for (auto& term : term_sums) {
        term.measured_us /= n;
        term.predicted_us /= n;
      }
      result.culprit = localize(term_sums, measured_sum_us / n);
      result.judgement =
          judge_degree(std::string(form.name), k, comparisons, kill_switch_for(r.kill_switches, form.name));
      results.push_back(std::move(result));
    }
  }
  return results;
}

std::vector<Speedup> speedups(const Registration& r, const std::vector<MeasuredCell>& measured) {
  std::vector<Speedup> out;
  for (int k : r.grid.tp)
    if (std::find(r.grid.tp.begin(), r.grid.tp.end(), 2 * k) != r.grid.tp.end())
      out.push_back({k, 2 * k, grid_mean_measured(r, measured, k) / grid_mean_measured(r, measured, 2 * k),
                     grid_mean_predicted(r, "ideal", k) / grid_mean_predicted(r, "ideal", 2 * k)});
  return out;
}

}  // namespace tpb
