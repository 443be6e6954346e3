// Kill switches, verdicts and the localizing term on synthetic cells where
// each term in turn is the culprit.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "predictor/model_forms.hpp"
#include "predictor/verdict.hpp"

namespace tpb {
namespace {

TEST(KillSwitch, DefaultIsFifteenPercentForEveryForm) {
  const auto table = kill_switch_table();
  ASSERT_EQ(table.size(), model_forms().size());
  for (const auto& form : model_forms()) EXPECT_DOUBLE_EQ(kill_switch_for(table, form.name), 15.0);
  EXPECT_DOUBLE_EQ(kill_switch_for(kill_switch_table(7.5), "replay"), 7.5);
  EXPECT_THROW(kill_switch_table(0), UsageError);
  EXPECT_THROW(kill_switch_table(-3), UsageError);
  EXPECT_THROW(kill_switch_for(table, "roofline"), Error);
}

TEST(Verdict, ThresholdItselfHolds) {
  EXPECT_EQ(judge(15.0, 15.0), Verdict::holds);
  EXPECT_EQ(judge(15.0001, 15.0), Verdict::falsified);
  EXPECT_EQ(to_string(Verdict::holds), "HOLDS");
  EXPECT_EQ(to_string(Verdict::falsified), "FALSIFIED");
}

TEST(Verdict, DegreeMapeOverTheGrid) {
  // Errors +2.86 %, -10 %, +40 %: MAPE 17.62 %.
  const std::vector<CellComparison> cells{{1, 128, 102.86, 100, {99, 101}, 2.86},
                                          {4, 128, 180, 200, {198, 202}, -10},
                                          {8, 128, 420, 300, {290, 310}, 40}};
  const auto j = judge_degree("ideal", 4, cells, 15.0);
  EXPECT_NEAR(j.mape_pct, (2.86 + 10 + 40) / 3, 1e-9);
  EXPECT_EQ(j.verdict, Verdict::falsified);
  EXPECT_EQ(judge_degree("ideal", 4, cells, 20.0).verdict, Verdict::holds);
}

// Predicted: compute 500, collective 60, host 0 (t_step 560).
std::vector<TermComparison> terms(double compute, double collective, double host) {
  return {{"compute", compute, 500}, {"collective", collective, 60}, {"host", host, 0}};
}

TEST(Localization, ComputeIsTheCulprit) {
  const auto l = localize(terms(800, 70, 20), 890);
  EXPECT_EQ(l.term, "compute");
  EXPECT_DOUBLE_EQ(l.departure_us, 300.0);
  EXPECT_DOUBLE_EQ(l.departure_pct, 300.0 / 890 * 100);
}

TEST(Localization, InSituCollectiveIsTheCulprit) {
  const auto l = localize(terms(510, 260, 20), 790);
  EXPECT_EQ(l.term, "collective");
  EXPECT_DOUBLE_EQ(l.measured_us, 260.0);
  EXPECT_DOUBLE_EQ(l.predicted_us, 60.0);
  EXPECT_DOUBLE_EQ(l.departure_us, 200.0);
}

TEST(Localization, HostIsTheCulprit) {
  const auto l = localize(terms(520, 65, 400), 985);
  EXPECT_EQ(l.term, "host");
  EXPECT_DOUBLE_EQ(l.departure_us, 400.0);
}

TEST(Localization, AnOverPredictedTermIsNamedWithANegativeDeparture) {
  const auto l = localize(terms(200, 60, 0), 260);
  EXPECT_EQ(l.term, "compute");
  EXPECT_DOUBLE_EQ(l.departure_us, -300.0);
}

TEST(Localization, RejectsEmptyTermsAndNonPositiveStep) {
  EXPECT_THROW(localize(std::vector<TermComparison>{}, 1.0), Error);
  EXPECT_THROW(localize(terms(1, 1, 1), 0.0), Error);
}

}  // namespace
}  // namespace tpb
