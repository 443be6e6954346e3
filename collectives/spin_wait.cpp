#include "collectives/spin_wait.hpp"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace tpb {
namespace {

std::atomic<StallReporter> g_reporter{nullptr};

// Checks spent spinning before the first yield: about a microsecond of pause
// instructions, shorter than a one-shot call, so that a peer a few hundred
// nanoseconds late is caught without a system call.
constexpr unsigned kSpinsBeforeYield = 64;

// Yields before a waiter starts to sleep. Linux's CFS may return a yielding
// task to its core straight away, so with ranks outnumbering busy cores a
// waiter that only yields can keep the peer it waits for off the core for a
// whole time slice, on every call. After about a millisecond of yielding the
// peer is evidently not running: short sleeps then hand the core over. A call
// whose peers are running finishes long before this point.
constexpr unsigned kYieldsBeforeSleep = 1024;
constexpr std::chrono::microseconds kSleep{50};

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
  else if (spins < kSpinsBeforeYield + kYieldsBeforeSleep)
    sched_yield();
  else
    std::this_thread::sleep_for(kSleep);
}

bool stall_reporting_enabled() { return g_reporter.load() != nullptr; }

void report_stall(const std::string& what) {
  if (StallReporter reporter = g_reporter.load()) reporter("collective wait", what);
}

}  // namespace detail
}  // namespace tpb
