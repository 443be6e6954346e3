#pragma once
// What host memory this process may use, read from the kernel: MemAvailable
// from /proc/meminfo and the tightest memory limit on this process's cgroup
// path, under cgroup v1 (memory.limit_in_bytes) and v2 (memory.max). Limits
// are inherited, so every level from the process's own cgroup up to the
// hierarchy's mount is read: Slurm sets its limit on the job
// (/slurm/uid_U/job_J under v1, .../job_J under v2) and runs tasks in cgroups
// nested below it.
#include <cstdint>
#include <optional>
#include <string>

namespace tpb {

struct CgroupMemoryLimit {
  std::uint64_t bytes = 0;
  std::string file;  // the file holding the tightest limit, e.g. /sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes
  int version = 1;   // 1 or 2
};

struct HostMemory {
  std::uint64_t mem_available_bytes = 0;          // /proc/meminfo MemAvailable
  std::optional<CgroupMemoryLimit> cgroup_limit;  // absent when no level sets a limit
  // min(MemAvailable, cgroup limit)
  std::uint64_t usable_bytes() const;
};

// Reads /proc/meminfo, /proc/self/cgroup and /proc/self/mountinfo.
HostMemory query_host_memory();

// The pieces, on given text (for tests): MemAvailable in bytes (throws
// tpb::Error when the line is absent), and the tightest limit of the cgroups
// named by `proc_self_cgroup`, found through the mounts of `mountinfo`.
std::uint64_t parse_mem_available(const std::string& meminfo_text);
std::optional<CgroupMemoryLimit> cgroup_memory_limit(const std::string& proc_self_cgroup,
                                                     const std::string& mountinfo);

}  // namespace tpb
