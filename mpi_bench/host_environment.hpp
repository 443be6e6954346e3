#pragma once
// What the host was doing and how it was set up when a study ran, for /meta:
// CPU model, frequency governor, SMT, load average, cgroup CPU quota, clock
// source and each rank's CPU binding. Anything unreadable is recorded as
// "unknown (PATH unreadable)", never guessed.
#include <optional>
#include <string>
#include <vector>

#include "results/h5_file.hpp"

namespace tpb {

struct HostEnvironment {
  std::string cpu_model;
  int cpu_cores = 0;  // online

  std::string governor;
  std::string smt;
  std::string load_average;
  std::string cgroup_cpu_quota;
  std::string clocksource;
  std::vector<std::string> binding;  // per world rank: "rank R: cpus LIST"
};

// Collective over MPI_COMM_WORLD (the binding is gathered); complete on rank 0.
HostEnvironment collect_host_environment();

// Rank 0: the environment as /meta attributes env_*.
void write_host_environment(H5File& file, const HostEnvironment& environment);

// The CPU a file's study ran on, from /meta; none in a file written before
// the core count was recorded.
struct HostCpu {
  std::string model;
  int cores = 0;
};
std::optional<HostCpu> read_host_cpu(const H5File& file);

}  // namespace tpb
