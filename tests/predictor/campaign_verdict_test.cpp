// pool_campaign on launch evaluations built by hand: the counted and the
// missing launches, a cell pooled over the launches' medians, the pooled A/A
// gating HOLDS, and NOT_APPLICABLE carried through.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "predictor/campaign_verdict.hpp"

namespace tpb {
namespace {

CellJudgement campaign_cell_at(double median_log) {
  CellJudgement c;
  c.median_log = median_log;
  return c;
}

// One launch: the A/A on one rank at `aa`, `ideal` at k = 2 with two cells
// at `a` and `b`, `host_floor` NOT_APPLICABLE when `na`.
LaunchEvaluation campaign_launch(int index, double aa, double a, double b, bool na = false) {
  LaunchEvaluation l;
  l.index = index;
  l.evaluation.family_cells = 2;
  l.evaluation.aa.run = true;
  l.evaluation.aa.cells.push_back({0, 1, 32, campaign_cell_at(aa)});
  FormKVerdict ideal;
  ideal.form = "ideal";
  ideal.k = 2;
  ideal.judged.cells = {campaign_cell_at(a), campaign_cell_at(b)};
  FormKVerdict host;
  host.form = "host_floor";
  host.k = 2;
  if (na) {
    host.outcome = Outcome::not_applicable;
    host.not_applicable_reason = "t_host is not a separate term";
  } else {
    host.judged.cells = {campaign_cell_at(a), campaign_cell_at(b)};
  }
  l.evaluation.cells = {ideal, host};
  return l;
}

CampaignDesign campaign_design_of(int launches) {
  CampaignDesign d;
  d.launches = launches;
  return d;
}

TEST(CampaignVerdict, PoolsEachCellAndNamesTheMissingLaunches) {
  const CampaignVerdict v = pool_campaign(
      campaign_design_of(4), {campaign_launch(1, 0.0, 0.01, 0.02), campaign_launch(2, 0.01, 0.02, 0.03), campaign_launch(4, -0.01, 0.03, 0.04)});
  EXPECT_EQ(v.counted, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(v.missing, (std::vector<int>{3}));
  EXPECT_TRUE(v.incomplete());
  ASSERT_EQ(v.cells.size(), 2u);
  EXPECT_DOUBLE_EQ(v.cells[0].cells[0].judged.median_log, 0.02);
  EXPECT_EQ(v.cells[0].cells[1].launch_median_log, (std::vector<double>{0.02, 0.03, 0.04}));
  EXPECT_TRUE(v.aa_holds);
  EXPECT_EQ(v.cells[0].outcome, Outcome::holds);
}

TEST(CampaignVerdict, APooledAaThatDoesNotHoldWithholdsHolds) {
  const CampaignVerdict v =
      pool_campaign(campaign_design_of(3), {campaign_launch(1, 0.0, 0.01, 0.0), campaign_launch(2, 0.3, 0.0, 0.01), campaign_launch(3, -0.3, 0.0, 0.0)});
  EXPECT_FALSE(v.aa_holds);
  EXPECT_EQ(v.cells[0].outcome, Outcome::inconclusive);
  EXPECT_EQ(v.cells[0].judged.reason, InconclusiveReason::aa_not_held);
}

TEST(CampaignVerdict, NotApplicableInAnyLaunchIsNotApplicable) {
  const CampaignVerdict v =
      pool_campaign(campaign_design_of(2), {campaign_launch(1, 0.0, 0.0, 0.0), campaign_launch(2, 0.0, 0.0, 0.0, true)});
  EXPECT_EQ(v.cells[1].outcome, Outcome::not_applicable);
  EXPECT_EQ(v.cells[1].not_applicable_reason, "t_host is not a separate term");
}

TEST(CampaignVerdict, LaunchesThatJudgedOtherCellsAreAnError) {
  LaunchEvaluation other = campaign_launch(2, 0.0, 0.0, 0.0);
  other.evaluation.cells[0].judged.cells.pop_back();
  EXPECT_THROW(pool_campaign(campaign_design_of(2), {campaign_launch(1, 0.0, 0.0, 0.0), other}), Error);
}

}  // namespace
}  // namespace tpb
