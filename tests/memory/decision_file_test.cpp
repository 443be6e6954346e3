// The decision in the results file: /decision written and read back as it was
// decided, named by the layout (so `verify` accepts it), with absent figures
// absent; the verdicts' standings read with and without error_ci_high_pct; and
// the report's Decision section telling measured rows from MODELLED ones.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "results/decision_file.hpp"
#include "results/form_standings.hpp"
#include "results/layout.hpp"
#include "results/report_decision.hpp"

namespace tpb {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".h5")).string();
}

DecisionRow row(int k, std::int64_t b, BatchSource source, std::optional<double> full_us) {
  DecisionRow r;
  r.k = k;
  r.batch = b;
  r.context = 256;
  r.run = BatchEstimate{100.0 + b, source, source == BatchSource::measured ? 0 : 1,
                        source == BatchSource::measured ? 0 : 8};
  r.run_high_us = 101.0 + b;
  r.full_us = full_us;
  if (full_us) {
    r.full_high_us = *full_us + 5;
    r.full_terms = {*full_us * 0.7, *full_us * 0.3, 0};
  } else {
    r.note = "no modelled figure: no form HOLDS at TP-2 with a stated upper error bound";
  }
  return r;
}

DeploymentDecision sample_decision() {
  DeploymentDecision d;
  d.layers_run = 2;
  d.layers_full = 16;
  d.budget_bytes = 1LL << 33;
  d.budget_source = "--mem-per-device 8G";
  d.reserve_pct = 10;
  d.tpot_slo_ms = 5;
  DegreeDecision one;
  one.k = 1;
  one.capacity.fits = true;
  one.capacity.kv_tokens_per_device = 123456;
  one.contexts = {256};
  one.max_batch = {40};
  one.form = "replay";
  one.error_ci_high_pct = 4.5;
  DecisionRow measured_in_batch = row(1, 8, BatchSource::measured, 900);
  measured_in_batch.form = "replay";
  measured_in_batch.error_ci_high_pct = 4.5;
  DecisionRow at_max = row(1, 40, BatchSource::extrapolated, 2000);
  at_max.at_max_batch = true;
  at_max.form = "replay";
  at_max.error_ci_high_pct = 4.5;
  one.rows = {measured_in_batch, at_max};
  DegreeDecision two;
  two.k = 2;
  two.capacity.fits = false;
  two.contexts = {256};
  two.max_batch = {0};
  two.no_model_reason = "no modelled figure: no form HOLDS at TP-2 with a stated upper error bound";
  d.degrees = {one, two};
  SloChoice choice;
  choice.context = 256;
  choice.row = at_max;
  choice.prediction = "a TP-1 run of the full model measures a median TPOT ≤ 2.005 ms";
  choice.bottleneck = "memory capacity";
  choice.reason = "the memory budget admits no larger batch";
  d.choices = {choice};
  return d;
}

TEST(DecisionFile, RoundTripsAndTheLayoutNamesIt) {
  const std::string path = temp_path("tpb_decision");
  {
    H5File file(path, H5Mode::create_overwrite);
    write_decision(file, sample_decision());
    write_decision(file, sample_decision());  // replaced, not merged
  }
  H5File file(path, H5Mode::read_only);
  ASSERT_TRUE(has_decision(file));
  const DeploymentDecision back = read_decision(file);
  EXPECT_EQ(back.layers_full, 16);
  EXPECT_EQ(back.budget_source, "--mem-per-device 8G");
  EXPECT_EQ(back.tpot_slo_ms, 5);
  ASSERT_EQ(back.degrees.size(), 2u);
  EXPECT_EQ(back.degrees[0].max_batch, std::vector<std::int64_t>{40});
  EXPECT_FALSE(back.degrees[1].capacity.fits);
  ASSERT_EQ(back.degrees[0].rows.size(), 2u);
  const DecisionRow& max = back.degrees[0].rows[1];
  EXPECT_EQ(max.batch, 40);
  EXPECT_EQ(max.run->source, BatchSource::extrapolated);
  EXPECT_DOUBLE_EQ(*max.full_us, 2000);
  EXPECT_EQ(max.form, "replay");
  ASSERT_EQ(back.choices.size(), 1u);
  EXPECT_EQ(back.choices[0].bottleneck, "memory capacity");
  EXPECT_EQ(back.choices[0].row->batch, 40);
  for (const std::string& group : {decision_degree_path(1), decision_row_path(1, 40, 256), decision_choice_path(256),
                                  std::string(kDecisionGroup)})
    EXPECT_TRUE(schema_names(group, true)) << group;
  EXPECT_TRUE(schema_names(decision_degree_path(1) + "/max_batch", false));
  std::filesystem::remove(path);
}

TEST(DecisionFile, AnAbsentFigureIsAnAbsentAttribute) {
  const std::string path = temp_path("tpb_decision_absent");
  DeploymentDecision d = sample_decision();
  d.degrees[1].capacity.fits = true;
  d.degrees[1].max_batch = {8};
  d.degrees[1].rows = {row(2, 8, BatchSource::measured, std::nullopt)};
  {
    H5File file(path, H5Mode::create_overwrite);
    write_decision(file, d);
  }
  H5File file(path, H5Mode::read_only);
  H5Handle g = file.open_object(decision_row_path(2, 8, 256));
  EXPECT_TRUE(has_attribute(g.id(), "t_step_run_us"));
  EXPECT_FALSE(has_attribute(g.id(), "t_step_us"));
  EXPECT_FALSE(has_attribute(g.id(), "tokens_per_s_per_device"));
  EXPECT_FALSE(read_decision(file).degrees[1].rows[0].full_us);
  std::filesystem::remove(path);
}

TEST(FormStandings, ReadsTheUpperBoundWhereTheVerdictStatesIt) {
  const std::string path = temp_path("tpb_standings");
  {
    H5File file(path, H5Mode::create_overwrite);
    H5Handle ideal = file.group(verdict_group_path("ideal", 2));
    write_attribute(ideal.id(), "verdict", std::string("HOLDS"));
    write_attribute(ideal.id(), "error_ci_high_pct", 7.5);
    H5Handle replay = file.group(verdict_group_path("replay", 2));  // a verdict that judged only a MAPE
    write_attribute(replay.id(), "verdict", std::string("HOLDS"));
    write_attribute(replay.id(), "mape_pct", 1.0);
    H5Handle host = file.group(verdict_group_path("host_floor", 2));  // judged nowhere: NaN bound
    write_attribute(host.id(), "verdict", std::string("NOT_APPLICABLE"));
    write_attribute(host.id(), "error_ci_high_pct", std::nan(""));
  }
  H5File file(path, H5Mode::read_only);
  auto standings = read_form_standings(file, Grid{{1, 2}, {1}, {8}});
  ASSERT_EQ(standings.size(), 3u);
  EXPECT_EQ(standings[1].form, "host_floor");
  EXPECT_FALSE(standings[1].error_ci_high_pct);
  standings.erase(standings.begin() + 1);
  EXPECT_EQ(standings[0].form, "ideal");
  EXPECT_EQ(standings[0].error_ci_high_pct, 7.5);
  EXPECT_EQ(standings[1].form, "replay");
  EXPECT_FALSE(standings[1].error_ci_high_pct);
  // The one without a bound is never the form of a modelled figure, whatever its MAPE.
  EXPECT_EQ(form_for_modelled_figures(standings, 2)->form, "ideal");
  std::filesystem::remove(path);
}

TEST(ReportDecision, MeasuredAndModelledRowsAreToldApart) {
  const std::string md = decision_markdown(sample_decision());
  EXPECT_NE(md.find("## Decision"), std::string::npos);
  EXPECT_NE(md.find("| 1 | 40 (max) | 256 | **MODELLED** |"), std::string::npos) << md;
  EXPECT_NE(md.find("extrapolated in batch on the line through b=1 and b=8; layers 2 → 16 by `replay`"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**does not fit**"), std::string::npos);
  EXPECT_NE(md.find("TP-2: no modelled figure"), std::string::npos);
  EXPECT_NE(md.find("Next bottleneck: **memory capacity**"), std::string::npos);
}

}  // namespace
}  // namespace tpb
