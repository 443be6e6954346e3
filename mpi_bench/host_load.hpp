#pragma once
// The host's state around a measurement, read from /proc: the CPU time stolen
// by the hypervisor (steal, from /proc/stat) between two samples, and the
// load average. Where /proc is unreadable the sample is marked invalid and
// the figures read as NaN rather than as a quiet zero.
#include <cstdint>

namespace tpb {

struct CpuTimes {
  bool valid = false;
  std::uint64_t total = 0;  // jiffies over every state of the aggregate "cpu" line
  std::uint64_t steal = 0;
};

CpuTimes read_cpu_times();

// Steal in percent of the CPU time between `before` and `after`; NaN when
// either sample is invalid or no time passed.
double steal_pct_between(const CpuTimes& before, const CpuTimes& after);

// The 1-minute load average; NaN when /proc/loadavg is unreadable.
double load_average_1m();

// Wall clock in microseconds since the Unix epoch.
double unix_time_us();

}  // namespace tpb
