#include "predictor/round_localization.hpp"

#include <algorithm>

#include "predictor/round_evaluation.hpp"
#include "predictor/statistics.hpp"

namespace tpb {
namespace {

// Per term, the per-round values of one grid cell: measured and predicted.
struct TermSeries {
  std::vector<double> measured, predicted;
};

}  // namespace

std::optional<Localization> localize_rounds(const Registration& r, const ModelForm& form, int k,
                                            const std::vector<RoundObservation>& rounds) {
  if (k == 1) return std::nullopt;
  std::vector<TermComparison> terms{{"compute", 0.0, 0.0}, {"collective", 0.0, 0.0}};
  double step_sum = 0;
  int cells = 0;
  for (int b : r.grid.batch)
    for (int c : r.grid.context) {
      const DegreeCell cell{k, b, c};
      TermSeries compute, collective;
      std::vector<double> step;
      for (const RoundObservation& round : rounds) {
        const auto nocomm = round.nocomm_rank_us.find(cell);
        const auto waits = round.rank_collective_us.find(cell);
        if (nocomm == round.nocomm_rank_us.end() || waits == round.rank_collective_us.end() ||
            waits->second.size() < 2)
          return std::nullopt;
        const Prediction p = round_prediction(r, form, cell, round);
        compute.measured.push_back(group_max(nocomm->second, k));
        compute.predicted.push_back(p.terms.compute_us);
        collective.measured.push_back(*std::min_element(waits->second.begin(), waits->second.end()));
        collective.predicted.push_back(p.terms.collective_us);
        step.push_back(round.step_us.at(cell));
      }
      const TermSeries* series[] = {&compute, &collective};
      for (std::size_t t = 0; t < terms.size(); ++t) {
        terms[t].measured_us += median(series[t]->measured);
        terms[t].predicted_us += median(series[t]->predicted);
      }
      step_sum += median(step);
      ++cells;
    }
  for (TermComparison& term : terms) {
    term.measured_us /= cells;
    term.predicted_us /= cells;
  }
  return localize(terms, step_sum / cells);
}

}  // namespace tpb
