// verify_results_file on files built to be wrong in one way each: the first
// problem it reports names what is wrong, and report/verdict's gate follows it.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "predictor/sha256.hpp"
#include "results/h5_check.hpp"
#include "results/results_file.hpp"
#include "results/verify.hpp"

namespace tpb {
namespace {

class VerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             fmt::format("tpb_verify_{}_{}.h5", ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                         getpid()))
                .string();
    meta_.command_line = "mpi_bench sweep";
    meta_.started_at = "2026-11-30T04:00:00Z";
    meta_.hostnames = {"node0"};
    meta_.rank_map = {R"({"rank":0})", R"({"rank":1})"};
  }
  void TearDown() override { std::remove(path_.c_str()); }

  // A two-rank sweep file with one TP-2 group of 3 sizes x 2 iterations.
  std::unique_ptr<ResultsFile> sweep_file() {
    auto file = std::make_unique<ResultsFile>(path_, true, meta_);
    H5File& h5 = file->h5();
    h5.write_dataset("/sweep/k2/bytes", std::vector<std::int64_t>{8, 16, 32}, {3});
    h5.write_dataset("/sweep/k2/time_us", std::vector<double>(12, 1.5), {3, 2, 2});
    for (const char* name : {"time_median_us", "algbw_GBps", "busbw_GBps"})
      h5.write_dataset(std::string("/sweep/k2/") + name, std::vector<double>{1, 2, 3}, {3});
    H5Handle group = h5.group("/sweep/k2");
    write_attribute(group.id(), "iters", std::int64_t{2});
    return file;
  }

  std::string first_problem() {
    const VerifyResult result = verify_results_file(path_);
    return result.ok() ? "ok" : result.problems.front().message;
  }

  std::string path_;
  RunMeta meta_;
};

TEST_F(VerifyTest, ACompleteConsistentFileIsOk) {
  sweep_file()->mark_complete();
  const VerifyResult result = verify_results_file(path_);
  EXPECT_TRUE(result.ok()) << result.summary();
  EXPECT_TRUE(result.complete);
  EXPECT_EQ(result.datasets_checked, 5);
  EXPECT_NO_THROW(require_verified_results(path_, false));
}

TEST_F(VerifyTest, AnIncompleteFileIsRefusedUnlessAllowedAndThenLabelled) {
  sweep_file();  // never marked complete, as after a killed run
  EXPECT_EQ(first_problem(), "/meta complete=0: the run did not finish (killed, failed or still running)");
  try {
    require_verified_results(path_, false);
    FAIL() << "an incomplete file was accepted";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              fmt::format("{}: /meta complete=0: the run did not finish (killed, failed or still running) (run "
                          "'mpi_bench verify {}'; --allow-incomplete reads it anyway)",
                          path_, path_));
  }
  const VerifyResult allowed = require_verified_results(path_, true);
  EXPECT_EQ(incomplete_banner(allowed),
            fmt::format("> WARNING: built with --allow-incomplete from {}: /meta complete=0: the run did not finish "
                        "(killed, failed or still running)",
                        path_));
}

TEST_F(VerifyTest, AReportFromAnUnverifiedFileSaysSoOnItsFirstLine) {
  sweep_file();
  const VerifyResult result = require_verified_results(path_, true);
  const std::string report = path_ + ".md";
  { std::ofstream(report) << "# Study report\n"; }
  label_unverified_report(report, result);
  std::ifstream in(report);
  std::string first, blank, title;
  std::getline(in, first);
  std::getline(in, blank);
  std::getline(in, title);
  EXPECT_EQ(first, incomplete_banner(result));
  EXPECT_EQ(title, "# Study report");
  std::remove(report.c_str());
}

TEST_F(VerifyTest, ANonFiniteTimeIsNamedWithItsElement) {
  auto file = sweep_file();
  std::vector<double> times(12, 1.5);
  times[5] = std::nan("");
  file->h5().write_dataset("/sweep/k2/time_us", times, {3, 2, 2});
  file->mark_complete();
  EXPECT_EQ(first_problem(), "/sweep/k2/time_us: element 5 is nan (a measured time or rate must be finite)");
}

TEST_F(VerifyTest, InfiniteBandwidthIsAProblemButANonMeasuredNaNIsNot) {
  auto file = sweep_file();
  file->h5().write_dataset("/sweep/k2/busbw_GBps", std::vector<double>{1, INFINITY, 3}, {3});
  file->mark_complete();
  EXPECT_EQ(first_problem(), "/sweep/k2/busbw_GBps: element 1 is inf (a measured time or rate must be finite)");
  file->h5().write_dataset("/sweep/k2/busbw_GBps", std::vector<double>{1, 2, 3}, {3});
  file->h5().write_dataset("/sweep/k2/count", std::vector<double>{std::nan(""), 0, 0}, {3});
  EXPECT_EQ(first_problem(), "ok");
}

TEST_F(VerifyTest, ASweepDatasetShorterThanItsSizesIsInconsistent) {
  auto file = sweep_file();
  file->h5().write_dataset("/sweep/k2/busbw_GBps", std::vector<double>{1, 2}, {2});
  file->mark_complete();
  EXPECT_EQ(first_problem(), "/sweep/k2/busbw_GBps: 2 entries along its first axis, but the sweep has 3 sizes");
}

TEST_F(VerifyTest, SamplesPerSizeMustMatchIters) {
  auto file = sweep_file();
  H5Handle group = file->h5().group("/sweep/k2");
  write_attribute(group.id(), "iters", std::int64_t{5});
  file->mark_complete();
  EXPECT_EQ(first_problem(), "/sweep/k2/time_us: 2 samples per size, but the group's iters attribute says 5");
}

TEST_F(VerifyTest, AMissingRequiredSweepDatasetIsNamed) {
  ResultsFile file(path_, true, meta_);
  file.h5().write_dataset("/sweep/k1/bytes", std::vector<std::int64_t>{8}, {1});
  file.mark_complete();
  EXPECT_EQ(first_problem(), "/sweep/k1: no time_us dataset");
}

TEST_F(VerifyTest, ATpDegreeThatDoesNotDivideTheRunIsInconsistent) {
  ResultsFile file(path_, true, meta_);
  file.h5().write_dataset("/step/k3/b1_c16/t_step_us", std::vector<double>{1, 2}, {1, 2});
  file.mark_complete();
  EXPECT_EQ(first_problem(), "/step/k3: TP degree 3 does not divide the 2 ranks in /meta rank_map");
}

TEST_F(VerifyTest, APointWhoseAttributesDisagreeWithItsNameOrIters) {
  ResultsFile file(path_, true, meta_);
  file.h5().write_dataset("/step/k2/b4_c64/t_step_us", std::vector<double>{1, 2, 3, 4}, {2, 2});
  H5Handle point = file.h5().group("/step/k2/b4_c64");
  write_attribute(point.id(), "tp", std::int64_t{2});
  write_attribute(point.id(), "batch", std::int64_t{8});
  write_attribute(point.id(), "iters", std::int64_t{3});
  file.mark_complete();
  const VerifyResult result = verify_results_file(path_);
  ASSERT_EQ(result.problems.size(), 2u) << result.summary();
  EXPECT_EQ(result.problems[0].message, "/step/k2/b4_c64: attribute batch=8 disagrees with the group name");
  EXPECT_EQ(result.problems[1].message,
            "/step/k2/b4_c64/t_step_us: 2 iterations, but the point's iters attribute says 3");
}

TEST_F(VerifyTest, TStepHoldsOneColumnPerGroupAndTRankOnePerRank) {
  ResultsFile file(path_, true, meta_);
  const std::string point = "/step/k1/b4_c64";
  file.h5().write_dataset(point + "/tp_group", std::vector<std::int64_t>{0, 1}, {2});
  file.h5().write_dataset(point + "/t_rank_us", std::vector<double>{1, 2, 3, 4}, {2, 2});
  file.h5().write_dataset(point + "/t_step_us", std::vector<double>{1, 2, 3, 4}, {2, 2});
  file.mark_complete();
  EXPECT_EQ(first_problem(), "ok");
  // Two TP-2 groups' worth of columns where tp_group names one group per rank.
  file.h5().write_dataset(point + "/t_step_us", std::vector<double>{1, 2}, {2, 1});
  file.flush();
  EXPECT_EQ(first_problem(), point + "/t_step_us: 1 columns, but tp_group names 2 groups");
  file.h5().write_dataset(point + "/t_step_us", std::vector<double>{1, 2, 3, 4}, {2, 2});
  file.h5().write_dataset(point + "/t_rank_us", std::vector<double>{1, 2, 3}, {3, 1});
  file.flush();
  EXPECT_EQ(first_problem(), point + "/t_rank_us: 1 columns, but tp_group names 2 ranks");
}

TEST_F(VerifyTest, APreregistrationSealMustMatchItsText) {
  auto file = sweep_file();
  const std::string registered = R"({"threshold": 0.15})";
  file->h5().write_strings("/prereg/predictions_json", {registered});
  H5Handle prereg = file->h5().group("/prereg");
  write_attribute(prereg.id(), "sha256", sha256_hex(registered));
  file->mark_complete();
  EXPECT_EQ(first_problem(), "ok");
  file->h5().write_strings("/prereg/predictions_json", {R"({"threshold": 0.50})"});
  EXPECT_EQ(first_problem(),
            fmt::format("/prereg: the registration text hashes to {}, not its sealed sha256 {} (it was edited "
                        "after registration)",
                        sha256_hex(R"({"threshold": 0.50})"), sha256_hex(registered)));
}

TEST_F(VerifyTest, AWrongSchemaVersionIsUnreadableEvenWithAllowIncomplete) {
  auto file = sweep_file();
  H5Handle meta = file->h5().group("/meta");
  write_attribute(meta.id(), "schema_version", kSchemaVersion + 1);
  file->mark_complete();
  const VerifyResult result = verify_results_file(path_);
  EXPECT_TRUE(result.unreadable());
  EXPECT_EQ(result.summary(), fmt::format("{}: /meta schema_version is {}, this tpbench reads only version {}",
                                          path_, kSchemaVersion + 1, kSchemaVersion));
  EXPECT_THROW(require_verified_results(path_, true), UsageError);
}

TEST_F(VerifyTest, AFileWrittenBeforeSchema4IsRefusedInOneLineNamingItsVersion) {
  auto file = sweep_file();
  H5Handle meta = file->h5().group("/meta");
  write_attribute(meta.id(), "schema_version", std::int64_t{3});
  file->mark_complete();
  const VerifyResult result = verify_results_file(path_);
  EXPECT_TRUE(result.unreadable());
  EXPECT_EQ(result.summary(),
            fmt::format("{}: /meta schema_version is 3, this tpbench reads only version {}", path_, kSchemaVersion));
}

// A string dataset created but never written reads as null pointers. Reading
// it once threw from inside HDF5's link visit; the exception unwound through
// HDF5's C frames and the process crashed at exit in H5_term_library. Run as
// its own process by ctest, this test fails on that crash too.
TEST_F(VerifyTest, AnUnwrittenStringDatasetIsReportedWithoutCrashing) {
  auto file = sweep_file();
  H5Handle prereg = file->h5().group("/prereg");
  H5Handle type(H5_CHECK(H5Tcopy(H5T_C_S1)), H5Tclose);
  H5_CHECK(H5Tset_size(type.id(), H5T_VARIABLE));
  const hsize_t one = 1;
  H5Handle space(H5_CHECK(H5Screate_simple(1, &one, nullptr)), H5Sclose);
  H5Handle dataset(H5_CHECK(H5Dcreate2(prereg.id(), "predictions_json", type.id(), space.id(), H5P_DEFAULT,
                                       H5P_DEFAULT, H5P_DEFAULT)),
                   H5Dclose);
  write_attribute(prereg.id(), "sha256", std::string(64, '0'));
  file->mark_complete();
  EXPECT_EQ(first_problem(), "/prereg holds no predictions_json text");
}

TEST_F(VerifyTest, ADatasetOrGroupTheSchemaDoesNotNameIsFlagged) {
  auto file = sweep_file();
  file->h5().write_dataset("/sweep/k2/time_p99_us", std::vector<double>{1, 2, 3}, {3});
  file->mark_complete();
  EXPECT_EQ(first_problem(), fmt::format("/sweep/k2/time_p99_us: not a dataset the results schema (version {}) names",
                                         kSchemaVersion));
  std::filesystem::remove(path_);
  auto other = sweep_file();
  other->h5().group("/scratch");
  other->mark_complete();
  EXPECT_EQ(first_problem(), fmt::format("/scratch: not a group the results schema (version {}) names", kSchemaVersion));
}

TEST_F(VerifyTest, AMissingMetaAttributeIsNamed) {
  auto file = sweep_file();
  H5Handle meta = file->h5().group("/meta");
  H5Adelete(meta.id(), "git_sha");
  file->mark_complete();
  EXPECT_EQ(first_problem(), "/meta has no git_sha attribute");
}

TEST_F(VerifyTest, TextAndTruncatedFilesAreUnreadable) {
  { std::ofstream(path_) << "not HDF5\n"; }
  EXPECT_EQ(first_problem(), "not an HDF5 file, or truncated");
  sweep_file()->mark_complete();
  std::filesystem::resize_file(path_, std::filesystem::file_size(path_) / 2);
  const VerifyResult result = verify_results_file(path_);
  ASSERT_FALSE(result.ok());
  EXPECT_FALSE(result.complete);
}

TEST_F(VerifyTest, AMissingFileIsAUsageError) {
  EXPECT_THROW(verify_results_file(path_ + ".missing"), UsageError);
}

}  // namespace
}  // namespace tpb
