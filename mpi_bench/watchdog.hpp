#pragma once
// Per-rank watchdog: a stuck collective or step ends the job with a one-line
// diagnostic per rank (rank, host, stage, point, last progress time) and exit
// code kExitTimeout, instead of hanging until the scheduler kills it.
//
// Stages tell it they are alive with one call per point:
//   tpb::report_progress("sweep", fmt::format("k={} bytes={}", k, bytes));
// A rank that reports nothing for -T/--timeout seconds is declared stuck.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "mpi_bench/command.hpp"
#include "mpi_bench/fault_injection.hpp"

namespace tpb {

inline constexpr int kDefaultTimeoutS = 600;

struct WatchdogOptions {
  std::string timeout_s = std::to_string(kDefaultTimeoutS);  // -T/--timeout, validated by Watchdog
};

// Adds -T/--timeout to every subcommand, bound to one WatchdogOptions.
void add_timeout_option(CommandList& commands, WatchdogOptions& options);

// Marks `stage` as alive at `point` on this rank. Cheap (a lock and two
// string copies); call it once per measured point, not per inner iteration.
// This is also the one place a test-only fault (TPB_FAULT) can fire.
void report_progress(std::string_view stage, std::string_view point);

class Watchdog {
 public:
  // Collective-free: reads this rank's number and host, parses -T and
  // TPB_FAULT (UsageError on bad values), and starts watching with stage
  // "start". At most one Watchdog is active per process.
  explicit Watchdog(const WatchdogOptions& options);
  ~Watchdog();  // stops the watcher thread
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void progress(std::string_view stage, std::string_view point);

  // "tpbench: timeout: [rank 1 on node7] stage sweep, point bytes=64 KiB: no
  // progress for 600 s (last progress 2026-11-30T04:30:00Z); ending the job"
  std::string diagnostic() const;

 private:
  using Steady = std::chrono::steady_clock;
  void watch();
  [[noreturn]] void end_job();

  int timeout_s_;
  int rank_ = 0;
  std::string host_;
  FaultInjector faults_;

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable wake_;
  bool stopping_ = false;
  std::string stage_ = "start";
  std::string point_ = "-";
  Steady::time_point last_progress_;
  std::chrono::system_clock::time_point last_progress_wall_;
  std::thread watcher_;  // last: started once the state above exists
};

}  // namespace tpb
