#include "mpi_bench/host_load.hpp"

#include <chrono>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace tpb {

CpuTimes read_cpu_times() {
  CpuTimes times;
  std::ifstream in("/proc/stat");
  std::string line;
  if (!in || !std::getline(in, line) || line.rfind("cpu ", 0) != 0) return times;
  std::istringstream fields(line.substr(4));
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  std::uint64_t value = 0;
  for (int i = 0; i < 8 && fields >> value; ++i) {
    times.total += value;
    if (i == 7) {
      times.steal = value;
      times.valid = true;
    }
  }
  return times;
}

double steal_pct_between(const CpuTimes& before, const CpuTimes& after) {
  if (!before.valid || !after.valid || after.total <= before.total) return std::numeric_limits<double>::quiet_NaN();
  return 100.0 * static_cast<double>(after.steal - before.steal) / static_cast<double>(after.total - before.total);
}

double load_average_1m() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  if (!(in >> load)) return std::numeric_limits<double>::quiet_NaN();
  return load;
}

double unix_time_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace tpb
