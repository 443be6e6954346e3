// A campaign's sealed design: a lossless JSON round trip, a refusal naming
// the field for malformed text, the first flag that differs from the sealed
// study, and the launch directory names.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "predictor/campaign_design.hpp"

namespace tpb {
namespace {

CampaignDesign sample_design() {
  CampaignDesign d;
  d.launches = 5;
  d.model = "llama-3.2-1b";
  d.config_sha256 = std::string(64, 'a');
  d.backend = "cpu";
  d.collective = "mpi";
  d.layers = 2;
  d.iters = 1;
  d.grid = {{1, 2}, {1, 4}, {256}};
  d.sweep_iters = 20;
  d.calibration_rounds = 10;
  d.rounds = 80;
  d.time_budget_s = 150;
  d.seed = 20240;
  d.kill_switch_pct = 15;
  d.family_alpha = 0.05;
  return d;
}

TEST(CampaignDesign, JsonRoundTripIsExact) {
  const std::string text = campaign_design_json(sample_design());
  const CampaignDesign back = parse_campaign_design(text);
  EXPECT_EQ(campaign_design_json(back), text);
  EXPECT_EQ(back.launches, 5);
  EXPECT_EQ(back.grid.batch, (std::vector<int>{1, 4}));
  EXPECT_EQ(campaign_design_difference(sample_design(), back), "");
}

TEST(CampaignDesign, MalformedTextNamesTheProblem) {
  EXPECT_THROW(parse_campaign_design("{"), UsageError);
  try {
    parse_campaign_design(R"({"campaign_version": 1})");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "campaign.json: missing field 'launches'");
  }
  CampaignDesign one = sample_design();
  one.launches = 1;
  EXPECT_THROW(parse_campaign_design(campaign_design_json(one)), UsageError);
}

TEST(CampaignDesign, TheFirstDifferingFlagIsNamed) {
  CampaignDesign launch = sample_design();
  launch.grid.batch = {1};
  launch.rounds = 40;
  EXPECT_EQ(campaign_design_difference(sample_design(), launch), "--batch: 1 differs from the campaign's sealed 1,4");
  launch = sample_design();
  launch.launches = 9;  // L is the campaign's, not the launch's
  EXPECT_EQ(campaign_design_difference(sample_design(), launch), "");
}

TEST(CampaignDesign, ARegistrationIsComparedOnItsSealedStudy) {
  Registration r;
  r.workload.model = "llama-3.2-1b";
  r.workload.config_sha256 = std::string(64, 'a');
  r.workload.backend = "cpu";
  r.workload.iters = 1;
  r.grid = {{1, 2}, {1, 4}, {256}};
  r.design = make_rounds_design(80, 150, 20240, 15);
  EXPECT_EQ(campaign_registration_difference(sample_design(), r), "");
  r.grid.context = {128};
  EXPECT_EQ(campaign_registration_difference(sample_design(), r),
            "--context: 128 differs from the campaign's sealed 256");
}

TEST(CampaignDesign, LaunchDirectoryNames) {
  EXPECT_EQ(launch_directory_name(7), "launch-007");
  EXPECT_EQ(parse_launch_directory_name("launch-012"), 12);
  EXPECT_FALSE(parse_launch_directory_name("launch-12"));
  EXPECT_FALSE(parse_launch_directory_name("launch-01x"));
  EXPECT_FALSE(parse_launch_directory_name("campaign.json"));
}

}  // namespace
}  // namespace tpb
