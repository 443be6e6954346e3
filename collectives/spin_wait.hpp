#pragma once
// Waiting on a flag another process sets, for the one-shot communicators.
// Ranks may outnumber cores, so a waiter spins briefly, then yields the core on
// every check, then sleeps briefly between checks: a waiting rank must never
// starve the peer it waits for.
// A wait that lasts longer than kStallReportAfter is reported once through the
// stall reporter (mpi_bench connects it to the watchdog), so that a stuck
// collective is named by what it waits for; the report does not repeat, so the
// watchdog still ends a wait that never finishes.
#include <chrono>
#include <string>
#include <string_view>

namespace tpb {

inline constexpr std::chrono::seconds kStallReportAfter{1};

using StallReporter = void (*)(std::string_view stage, std::string_view what);

// Installs the process-wide reporter (nullptr: none). Not thread-safe against
// running waits: install it before any collective starts.
void set_stall_reporter(StallReporter reporter);

// Calls `done()` until it returns true. `describe()` names the wait for the
// stall report; it is only called if the wait stalls.
template <typename Done, typename Describe>
void spin_until(Done&& done, Describe&& describe);

namespace detail {
// One step of back-off after `spins` unsuccessful checks: a pause
// instruction for the first few, then sched_yield, then a short sleep.
void back_off(unsigned spins);
// Passes `what` to the installed reporter, if any.
void report_stall(const std::string& what);
bool stall_reporting_enabled();
}  // namespace detail

template <typename Done, typename Describe>
void spin_until(Done&& done, Describe&& describe) {
  if (done()) return;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  bool reported = false;
  for (unsigned spins = 1; !done(); ++spins) {
    detail::back_off(spins);
    // The clock is read only once the wait has left the fast path.
    if (!reported && spins % 1024 == 0 && Clock::now() - start > kStallReportAfter) {
      reported = true;
      if (detail::stall_reporting_enabled()) detail::report_stall(describe());
    }
  }
}

}  // namespace tpb
