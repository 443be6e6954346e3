// The step point as stored and read back: group 0's slowest rank per
// iteration from the current schema and from the previous one, and a
// collective term that was not measured read as absent, never as 0.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.hpp"
#include "common/samples.hpp"
#include "predictor/study_evaluation.hpp"
#include "results/layout.hpp"
#include "results/step_point.hpp"

namespace tpb {
namespace {

class StepPointFile : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }
  const std::string path_ =
      (std::filesystem::temp_directory_path() / ("tpb_step_point_" + std::to_string(getpid()) + ".h5")).string();
  const std::string point_ = step_point_path(StepRoot::step, 2, 1, 8);
};

// Two iterations of four ranks in two TP-2 groups.
StepPointRecord two_groups_of_two() {
  StepPointRecord r;
  r.iters = 2;
  r.ranks = 4;
  r.groups = 2;
  r.t_rank_us = {10, 12, 30, 31,   // iteration 0: group 0 slowest 12, group 1 slowest 31
                 15, 11, 20, 40};  // iteration 1: group 0 slowest 15, group 1 slowest 40
  r.t_step_us = {12, 31, 15, 40};
  r.t_host_us = {1, 2, 3, 4, 5, 6, 7, 8};
  r.tp_group = {0, 0, 1, 1};
  return r;
}

TEST_F(StepPointFile, GroupZeroSlowestRankOfTheCurrentSchema) {
  {
    H5File file(path_, H5Mode::create_new);
    write_step_point(file, point_, two_groups_of_two(), StepPointAttributes{});
  }
  const H5File file(path_, H5Mode::read_only);
  EXPECT_EQ(group0_slowest_per_iteration(file, point_, step_dataset::t_step_us), (std::vector<double>{12, 15}));
  EXPECT_EQ(group0_slowest_per_iteration(file, point_, step_dataset::t_host_us), (std::vector<double>{2, 6}));
  EXPECT_FALSE(collective_median_us(file, point_).has_value());
}

TEST_F(StepPointFile, TStepIsOneColumnPerGroupTheMaximumOfItsRanks) {
  {
    H5File file(path_, H5Mode::create_new);
    write_step_point(file, point_, two_groups_of_two(), StepPointAttributes{});
  }
  const H5File file(path_, H5Mode::read_only);
  std::vector<std::uint64_t> step_dims, rank_dims;
  const std::vector<double> t_step = file.read_doubles(step_dataset_path(point_, step_dataset::t_step_us), &step_dims);
  const std::vector<double> t_rank = file.read_doubles(step_dataset_path(point_, step_dataset::t_rank_us), &rank_dims);
  EXPECT_EQ(step_dims, (std::vector<std::uint64_t>{2, 2}));  // iterations × groups
  EXPECT_EQ(rank_dims, (std::vector<std::uint64_t>{2, 4}));  // iterations × ranks
  EXPECT_EQ(t_step, slowest_rank_of_each_group(t_rank, 4, 2));
}

TEST_F(StepPointFile, SchemaTwoPointReadsColumnZeroAsGroupZero) {
  {
    // Schema 2: t_step_us iterations × ranks, each column its group's slowest.
    H5File file(path_, H5Mode::create_new);
    file.write_dataset(point_ + "/t_step_us", std::vector<double>{12, 12, 31, 31, 15, 15, 40, 40}, {2, 4});
    file.write_dataset(point_ + "/tp_group", std::vector<std::int64_t>{0, 0, 1, 1}, {4});
  }
  const H5File file(path_, H5Mode::read_only);
  EXPECT_EQ(group0_slowest_per_iteration(file, point_, step_dataset::t_step_us), (std::vector<double>{12, 15}));
}

TEST_F(StepPointFile, AMisshapenRecordIsRefusedNotWritten) {
  StepPointRecord record = two_groups_of_two();
  record.t_step_us.push_back(50);  // one value too many for 2 iterations × 2 groups
  H5File file(path_, H5Mode::create_new);
  EXPECT_THROW(write_step_point(file, point_, record, StepPointAttributes{}), Error);
  EXPECT_FALSE(file.exists(step_dataset_path(point_, step_dataset::t_step_us)));
}

TEST_F(StepPointFile, PreviousSchemaStudyPointIsReadAsItsGroupsSlowestRank) {
  {
    // Schema 1 study points: group 0's own times under t_step_us, no t_rank_us, no tp_group.
    H5File file(path_, H5Mode::create_new);
    file.write_dataset(point_ + "/t_step_us", std::vector<double>{10, 12, 15, 11}, {2, 2});
    file.write_dataset(point_ + "/t_host_us", std::vector<double>{1, 2, 5, 6}, {2, 2});
    file.write_dataset(point_ + "/t_ar_insitu_us", std::vector<double>{3, 4, 5, 1}, {2, 2});
  }
  const H5File file(path_, H5Mode::read_only);
  EXPECT_EQ(group0_slowest_per_iteration(file, point_, step_dataset::t_step_us), (std::vector<double>{12, 15}));
  ASSERT_TRUE(collective_median_us(file, point_).has_value());
  EXPECT_DOUBLE_EQ(*collective_median_us(file, point_), (4.0 + 5.0) / 2);
}

TEST_F(StepPointFile, RecordColumnsKeepsOneGroup) {
  const StepPointRecord group1 = record_columns(two_groups_of_two(), 2, 2);
  EXPECT_EQ(group1.ranks, 2);
  EXPECT_EQ(group1.t_rank_us, (std::vector<double>{30, 31, 20, 40}));
  EXPECT_EQ(group1.groups, 1);
  EXPECT_EQ(group1.t_step_us, (std::vector<double>{31, 40}));
  EXPECT_EQ(group1.tp_group, (std::vector<std::int64_t>{1, 1}));
  EXPECT_TRUE(group1.t_ar_insitu_us.empty());
  EXPECT_THROW(record_columns(two_groups_of_two(), 1, 2), Error);  // half of each group
}

TEST(AppendIterations, StacksRoundsBelowEachOtherInExecutionOrder) {
  StepPointRecord point;
  append_iterations(point, two_groups_of_two());  // an empty record takes the first round as it is
  StepPointRecord second = two_groups_of_two();
  for (double& t : second.t_rank_us) t += 100;
  append_iterations(point, second);
  EXPECT_EQ(point.iters, 4);
  EXPECT_EQ(point.ranks, 4);
  EXPECT_EQ(point.t_rank_us, (std::vector<double>{10, 12, 30, 31, 15, 11, 20, 40,  //
                                                  110, 112, 130, 131, 115, 111, 120, 140}));
  EXPECT_EQ(point.t_step_us, (std::vector<double>{12, 31, 15, 40, 12, 31, 15, 40}));
  EXPECT_EQ(point.t_host_us.size(), 16u);
  EXPECT_TRUE(point.t_ar_insitu_us.empty());
}

TEST(AppendIterations, RefusesAPointOfOtherColumnsOrTerms) {
  StepPointRecord point = two_groups_of_two();
  EXPECT_THROW(append_iterations(point, record_columns(two_groups_of_two(), 0, 2)), Error);
  StepPointRecord with_collectives = two_groups_of_two();
  with_collectives.t_ar_insitu_us.assign(8, 1.0);
  EXPECT_THROW(append_iterations(point, with_collectives), Error);
}

TEST(CollectiveTerm, NotMeasuredIsLeftOutOfTheComparisonNotZero) {
  MeasuredCell cell;
  cell.compute_us = 80;
  cell.host_us = 90;
  const TermShares predicted{70, 20, 0};
  const std::vector<TermComparison> absent = compare_terms(cell, predicted);
  ASSERT_EQ(absent.size(), 1u);
  EXPECT_EQ(absent[0].term, "compute");
  EXPECT_FALSE(exposed_host_us(cell).has_value());

  cell.collective_us = 5;
  const std::vector<TermComparison> present = compare_terms(cell, predicted);
  ASSERT_EQ(present.size(), 3u);
  EXPECT_EQ(present[1].measured_us, 5);
  EXPECT_EQ(present[2].measured_us, 90 - 80 - 5);
}

}  // namespace
}  // namespace tpb
