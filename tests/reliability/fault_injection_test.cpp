// The TPB_FAULT test hook: its grammar, and that it fires on exactly the
// configured rank, stage and report.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "mpi_bench/fault_injection.hpp"

namespace tpb {
namespace {

TEST(FaultSpec, ParsesEveryKindAndTheReportCount) {
  const FaultSpec stall = parse_fault_spec("1:sweep:stall");
  EXPECT_EQ(stall.rank, 1);
  EXPECT_EQ(stall.stage, "sweep");
  EXPECT_EQ(stall.kind, FaultKind::stall);
  EXPECT_EQ(stall.at_report, 1);
  EXPECT_EQ(parse_fault_spec("0:step:throw").kind, FaultKind::throw_error);
  const FaultSpec kill = parse_fault_spec("3:measure:kill:5");
  EXPECT_EQ(kill.kind, FaultKind::kill);
  EXPECT_EQ(kill.at_report, 5);
}

class BadFaultSpec : public ::testing::TestWithParam<const char*> {};

TEST_P(BadFaultSpec, IsAUsageErrorNamingTheVariable) {
  try {
    parse_fault_spec(GetParam());
    FAIL() << "accepted '" << GetParam() << "'";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              std::string("TPB_FAULT: invalid value '") + GetParam() +
                  "' (expected RANK:STAGE:stall|throw|kill[:N])");
  }
}

INSTANTIATE_TEST_SUITE_P(Grammar, BadFaultSpec,
                         ::testing::Values("", "1", "1:sweep", "1:sweep:explode", "-1:sweep:kill", "x:sweep:kill",
                                           "1::kill", "1:sweep:kill:0", "1:sweep:kill:2:3", "99999999999:sweep:kill",
                                           "1:sweep:kill:"));

TEST(FaultInjector, ThrowsOnTheNthReportOfItsStageOnItsRankOnly) {
  FaultInjector other_rank(parse_fault_spec("1:sweep:throw:2"), /*rank=*/0);
  for (int i = 0; i < 5; ++i) EXPECT_NO_THROW(other_rank.on_progress("sweep"));

  FaultInjector injector(parse_fault_spec("1:sweep:throw:2"), /*rank=*/1);
  EXPECT_NO_THROW(injector.on_progress("step"));   // other stages do not count
  EXPECT_NO_THROW(injector.on_progress("sweep"));  // first report: not yet
  try {
    injector.on_progress("sweep");
    FAIL() << "second report of sweep did not fire";
  } catch (const Error& error) {
    EXPECT_EQ(error.library(), "tpbench");
    EXPECT_EQ(error.message(), "injected fault TPB_FAULT=1:sweep:throw:2");
  }
  EXPECT_NO_THROW(injector.on_progress("sweep"));  // fires once
}

}  // namespace
}  // namespace tpb
