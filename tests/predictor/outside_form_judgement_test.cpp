// Outside forms judged on simulated studies of the quick start
// (step_time_simulator.hpp): each is its own family, judged at its launch's
// level, so registering one never moves a built-in form's verdict, and a form
// three times off is FALSIFIED at every k.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "predictor/round_evaluation.hpp"
#include "verdict_lookup.hpp"
#include "step_time_simulator.hpp"

namespace tpb::sim {
namespace {

// `name`, a CSV of `factor` × the sealed `ideal` prediction of every grid
// cell, parsed and sealed into `r` as --form NAME=FILE would be.
void register_outside_form(Registration& r, const std::string& name, double factor) {
  std::string csv = "k,batch,context,t_step_us\n";
  for (int k : r.grid.tp)
    for (int b : r.grid.batch)
      for (int c : r.grid.context)
        csv += fmt::format("{},{},{},{:.3f}\n", k, b, c, factor * find_prediction(r.predictions, "ideal", k, b, c).prediction.t_step_us);
  const OutsideForm form = parse_outside_form(name, name + ".csv", csv, r.grid);
  r.outside_forms.push_back(form);
  for (const CellPrediction& p : outside_form_predictions(form)) r.predictions.push_back(p);
}

void expect_same_verdict(const FormKVerdict& a, const FormKVerdict& b) {
  EXPECT_EQ(a.outcome, b.outcome) << a.form << " k=" << a.k;
  ASSERT_EQ(a.judged.cells.size(), b.judged.cells.size());
  for (std::size_t i = 0; i < a.judged.cells.size(); ++i) {
    EXPECT_EQ(a.judged.cells[i].median_log, b.judged.cells[i].median_log) << a.form << " k=" << a.k;
    EXPECT_EQ(a.judged.cells[i].falsify.low, b.judged.cells[i].falsify.low) << a.form << " k=" << a.k;
  }
}

TEST(OutsideForms, LeaveTheBuiltInVerdictsUnchangedAndThreeTimesOffIsFalsifiedAtEveryK) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SimulatedStudy study = simulate_study(SimulatorConfig{}, seed);
    const RoundsEvaluation alone = evaluate_rounds(study.registration, study.rounds);
    register_outside_form(study.registration, "near", 1.02);
    register_outside_form(study.registration, "three_times", 3.0);
    const RoundsEvaluation with = evaluate_rounds(study.registration, study.rounds);
    ASSERT_EQ(with.cells.size(), alone.cells.size() + 2 * study.registration.grid.tp.size());
    for (std::size_t i = 0; i < alone.cells.size(); ++i) {
      ASSERT_EQ(with.cells[i].form, alone.cells[i].form);
      expect_same_verdict(with.cells[i], alone.cells[i]);
    }
    for (int k : study.registration.grid.tp) {
      const FormKVerdict& off = find_verdict(with, "three_times", k);
      EXPECT_TRUE(off.absolute);
      EXPECT_EQ(off.outside_source.substr(0, 16), "three_times.csv ");
      EXPECT_EQ(off.outcome, Outcome::falsified) << "seed " << seed << " k=" << k;
      EXPECT_FALSE(off.localized.has_value());  // no term columns: nothing to localize
    }
  }
}

}  // namespace
}  // namespace tpb::sim
