#include "mpi_bench/host_environment.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <sstream>

#include "collectives/mpi_check.hpp"

namespace tpb {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return fmt::format("unknown ({} unreadable)", path);
  return line;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown (/proc/cpuinfo has no model name)";
}

// cgroup v2 cpu.max ("max 100000" or "QUOTA PERIOD"), else v1's quota/period.
std::string cgroup_cpu_quota() {
  std::ifstream v2("/sys/fs/cgroup/cpu.max");
  std::string line;
  if (v2 && std::getline(v2, line)) return "cpu.max " + line;
  const std::string quota = first_line("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
  const std::string period = first_line("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  return fmt::format("cfs_quota_us {} / cfs_period_us {}", quota, period);
}

// This rank's CPU affinity as a comma list of ranges.
std::string affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return "unknown (sched_getaffinity failed)";
  std::string text;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!text.empty()) text += ',';
    text += last == cpu ? std::to_string(cpu) : fmt::format("{}-{}", cpu, last);
    cpu = last;
  }
  return text;
}

}  // namespace

HostEnvironment collect_host_environment() {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  constexpr int kWidth = 256;
  std::array<char, kWidth> mine{};
  const std::string own = affinity();
  own.copy(mine.data(), kWidth - 1);
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(kWidth) * size : 0);
  MPI_CHECK(MPI_Gather(mine.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, 0, MPI_COMM_WORLD));
  HostEnvironment env;
  if (rank != 0) return env;
  env.cpu_model = cpu_model();
  env.cpu_cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  env.governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  env.smt = first_line("/sys/devices/system/cpu/smt/control");
  env.load_average = first_line("/proc/loadavg");
  env.cgroup_cpu_quota = cgroup_cpu_quota();
  env.clocksource = first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  for (int r = 0; r < size; ++r)
    env.binding.push_back(fmt::format("rank {}: cpus {}", r, std::string(all.data() + static_cast<std::size_t>(r) * kWidth)));
  return env;
}

}  // namespace tpb
