#include "collectives/spin_wait.hpp"

#include <sched.h>

#include <atomic>

namespace tpb {
namespace {

std::atomic<StallReporter> g_reporter{nullptr};

// Checks spent spinning before the first yield: about a microsecond of pause
// instructions, shorter than a one-shot call, so that a peer a few hundred
// nanoseconds late is caught without a system call.
constexpr unsigned kSpinsBeforeYield = 64;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace

void set_stall_reporter(StallReporter reporter) { g_reporter.store(reporter); }

namespace detail {

void back_off(unsigned spins) {
  if (spins < kSpinsBeforeYield)
    cpu_relax();
  else
    sched_yield();
}

bool stall_reporting_enabled() { return g_reporter.load() != nullptr; }

void report_stall(const std::string& what) {
  if (StallReporter reporter = g_reporter.load()) reporter("collective wait", what);
}

}  // namespace detail
}  // namespace tpb
