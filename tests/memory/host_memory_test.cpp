// What the host lets a rank use: MemAvailable, and cgroup memory limits read
// through /proc/self/cgroup and mountinfo, on directory trees built to look
// like cgroup v1 (as on this machine) and v2 hierarchies, including Slurm's
// nested job/step/task cgroups whose limit sits on the job.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "common/host_memory.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "process_memory.hpp"

namespace tpb {
namespace {

namespace fs = std::filesystem;

class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tpb_cgroup_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes `value` to `relative` below the tree, creating its folders.
  void write(const std::string& relative, const std::string& value) {
    const fs::path file = root_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << value << "\n";
  }
  // A mountinfo line mounting a hierarchy's `hierarchy_root` at `relative` below the tree.
  std::string v1_mount(const std::string& relative, const std::string& hierarchy_root = "/") const {
    return "35 31 0:32 " + hierarchy_root + " " + (root_ / relative).string() +
           " rw,relatime - cgroup cgroup rw,memory\n";
  }
  std::string v2_mount(const std::string& relative) const {
    return "41 31 0:38 / " + (root_ / relative).string() + " rw,relatime - cgroup2 cgroup2 rw\n";
  }

  fs::path root_;
};

// cgroup v1 without a limit writes PAGE_COUNTER_MAX pages.
constexpr const char* kV1NoLimit = "9223372036854771712";

TEST(MemAvailable, ParsedInBytes) {
  EXPECT_EQ(parse_mem_available("MemTotal:       24683656 kB\nMemFree:  1 kB\nMemAvailable:   23851256 kB\n"),
            23851256ULL * 1024);
  EXPECT_THROW(parse_mem_available("MemTotal: 5 kB\n"), Error);
}

TEST_F(CgroupTree, V1UnlimitedAsOnThisMachine) {
  write("memory/memory.limit_in_bytes", kV1NoLimit);
  write("memory/process_api/abc/memory.limit_in_bytes", kV1NoLimit);
  EXPECT_FALSE(cgroup_memory_limit("4:memory:/process_api/abc\n0::/\n", v1_mount("memory")));
}

TEST_F(CgroupTree, V1SlurmJobLimitAboveTheTask) {
  // Slurm's task/cgroup: the limit is set on the job, tasks run below it.
  write("memory/memory.limit_in_bytes", kV1NoLimit);
  write("memory/slurm/uid_0/memory.limit_in_bytes", kV1NoLimit);
  write("memory/slurm/uid_0/job_42/memory.limit_in_bytes", "8589934592");
  write("memory/slurm/uid_0/job_42/step_0/memory.limit_in_bytes", kV1NoLimit);
  write("memory/slurm/uid_0/job_42/step_0/task_1/memory.limit_in_bytes", kV1NoLimit);
  const auto limit = cgroup_memory_limit("11:cpuset:/slurm/uid_0/job_42/step_0\n"
                                         "4:memory:/slurm/uid_0/job_42/step_0/task_1\n",
                                         v1_mount("memory"));
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->bytes, 8ULL << 30);
  EXPECT_EQ(limit->version, 1);
  EXPECT_EQ(limit->file, (root_ / "memory/slurm/uid_0/job_42/memory.limit_in_bytes").string());
}

TEST_F(CgroupTree, V1TightestLevelWins) {
  write("memory/a/memory.limit_in_bytes", "4096000");
  write("memory/a/b/memory.limit_in_bytes", "8192000");
  const auto limit = cgroup_memory_limit("7:memory,hugetlb:/a/b\n", v1_mount("memory"));
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->bytes, 4096000u);
}

TEST_F(CgroupTree, V2SlurmNestedPath) {
  // cgroup v2 under Slurm: .../job_7/step_0/user/task_0, memory.max on the job.
  write("unified/system.slice/slurmstepd.scope/job_7/memory.max", "17179869184");
  write("unified/system.slice/slurmstepd.scope/job_7/step_0/memory.max", "max");
  write("unified/system.slice/slurmstepd.scope/job_7/step_0/user/task_0/memory.max", "max");
  const auto limit =
      cgroup_memory_limit("0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n", v2_mount("unified"));
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->bytes, 16ULL << 30);
  EXPECT_EQ(limit->version, 2);
}

TEST_F(CgroupTree, V2MaxMeansNoLimit) {
  write("unified/user.slice/memory.max", "max");
  EXPECT_FALSE(cgroup_memory_limit("0::/user.slice\n", v2_mount("unified")));
}

TEST_F(CgroupTree, NamespacedPathFallsBackToTheMount) {
  // Inside a container the mount is the container's own cgroup, and the path
  // the kernel reports may not exist below it: the mount's level is read.
  write("memory/memory.limit_in_bytes", "2147483648");
  const auto limit = cgroup_memory_limit("4:memory:/docker/0123abcd\n", v1_mount("memory", "/docker/0123abcd"));
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->bytes, 2ULL << 30);
  // A path this mount namespace cannot see at all.
  const auto unseen = cgroup_memory_limit("4:memory:/elsewhere/x\n", v1_mount("memory"));
  ASSERT_TRUE(unseen);
  EXPECT_EQ(unseen->bytes, 2ULL << 30);
}

TEST_F(CgroupTree, HybridTakesTheTighterOfV1AndV2) {
  write("memory/job/memory.limit_in_bytes", "6000000000");
  write("unified/job/memory.max", "5000000000");
  const auto limit = cgroup_memory_limit("4:memory:/job\n0::/job\n", v1_mount("memory") + v2_mount("unified"));
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->bytes, 5000000000u);
  EXPECT_EQ(limit->version, 2);
}

TEST(HostMemoryBudget, SharedAmongTheRanksOfTheNode) {
  HostMemory host;
  host.mem_available_bytes = 24ULL << 30;
  EXPECT_EQ(host_memory_budget(host, 2).bytes, 12LL << 30);
  host.cgroup_limit = CgroupMemoryLimit{8ULL << 30, "/sys/fs/cgroup/memory/slurm/job_1/memory.limit_in_bytes", 1};
  const MemoryBudget budget = host_memory_budget(host, 4);
  EXPECT_EQ(budget.bytes, 2LL << 30);  // min(24 GiB, 8 GiB) / 4
  EXPECT_NE(budget.source.find("cgroup v1 limit 8.00 GiB"), std::string::npos) << budget.source;
  EXPECT_NE(budget.source.find("/ 4 ranks on this node"), std::string::npos) << budget.source;
}

TEST(DeviceMemoryBudget, SharedAmongTheRanksOfTheDevice) {
  const MemoryBudget budget = device_memory_budget(DeviceMemory{80ULL << 30, 96ULL << 30}, 2);
  EXPECT_EQ(budget.bytes, 40LL << 30);
  EXPECT_NE(budget.source.find("cudaMemGetInfo"), std::string::npos);
}

TEST(MemPerDevice, SizeSyntaxAndZeroRefused) {
  EXPECT_EQ(mem_per_device_budget("120G").bytes, 120LL << 30);
  EXPECT_EQ(mem_per_device_budget("120G").source, "--mem-per-device 120G");
  EXPECT_THROW(mem_per_device_budget("0"), UsageError);
  EXPECT_THROW(mem_per_device_budget("12X"), UsageError);
}

TEST(ThisProcess, PeakResidentIsAtLeastResident) {
  const std::uint64_t now = test::resident_bytes();
  EXPECT_GT(now, 0u);
  EXPECT_GE(test::peak_resident_bytes(), now);
  // This machine's own cgroup files parse (a limit or none, never an error).
  EXPECT_NO_THROW(query_host_memory());
}

}  // namespace
}  // namespace tpb
