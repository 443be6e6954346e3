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
  const char* names[] = {"compute", "collective", "straggler"};
  std::vector<TermComparison> terms;
  double step_sum = 0;
  int cells = 0;
  for (const char* name : names) terms.push_back({name, 0.0, 0.0});
  for (int b : r.grid.batch)
    for (int c : r.grid.context) {
      const DegreeCell cell{k, b, c};
      TermSeries compute, collective, straggler;
      std::vector<double> step;
      for (const RoundObservation& round : rounds) {
        const auto nocomm = round.nocomm_fastest_us.find(cell);
        const auto waits = round.rank_collective_us.find(cell);
        if (nocomm == round.nocomm_fastest_us.end() || waits == round.rank_collective_us.end() ||
            waits->second.size() < 2)
          return std::nullopt;
        const Prediction p = form.predict(paired_inputs(find_cell_inputs(r, k, b, c), round));
        const auto [least, most] = std::minmax_element(waits->second.begin(), waits->second.end());
        compute.measured.push_back(nocomm->second);
        compute.predicted.push_back(p.terms.compute_us);
        collective.measured.push_back(*least);
        collective.predicted.push_back(p.terms.collective_us);
        straggler.measured.push_back(*most - *least);
        straggler.predicted.push_back(0.0);
        step.push_back(round.step_us.at(cell));
      }
      const TermSeries* series[] = {&compute, &collective, &straggler};
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
