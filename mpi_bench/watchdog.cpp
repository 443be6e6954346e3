#include "mpi_bench/watchdog.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "collectives/spin_wait.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"

namespace tpb {
namespace {

// The watchdog of this process, if any: report_progress may be called from
// library code that has no handle on it.
std::atomic<Watchdog*> g_active{nullptr};

// After printing its diagnostic a rank waits this long before exiting, so that
// peers stuck at the same point (their watchdogs fire within moments) print
// theirs before mpirun tears the job down.
constexpr auto kDiagnosticGrace = std::chrono::seconds(2);

}  // namespace

void add_timeout_option(CommandList& commands, WatchdogOptions& options) {
  for (auto& command : commands)
    command.app->add_option("-T,--timeout", options.timeout_s,
                            "Seconds without progress after which a stage is declared stuck and the job ends (exit 4)")
        ->capture_default_str();
}

void report_progress(std::string_view stage, std::string_view point) {
  if (Watchdog* watchdog = g_active.load()) watchdog->progress(stage, point);
}

Watchdog::Watchdog(const WatchdogOptions& options)
    : timeout_s_(static_cast<int>(parse_integer("-T/--timeout", options.timeout_s, 1))) {
  // Watcher threads never call MPI (the session is MPI_THREAD_FUNNELED):
  // everything it prints is gathered here, on the main thread.
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  host_.assign(name, static_cast<std::size_t>(length));
  faults_ = FaultInjector::from_environment(rank_);

  last_progress_ = Steady::now();
  last_progress_wall_ = std::chrono::system_clock::now();
  Watchdog* expected = nullptr;
  TPB_CHECK(g_active.compare_exchange_strong(expected, this), "a second Watchdog was started in one process");
  watcher_ = std::thread([this] { watch(); });
  // A collective that spins on its peers names what it waits for (once per
  // stalled wait, so that a wait that never ends still times out).
  set_stall_reporter(&report_progress);
}

Watchdog::~Watchdog() {
  set_stall_reporter(nullptr);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watcher_.join();
  g_active.store(nullptr);
}

void Watchdog::progress(std::string_view stage, std::string_view point) {
  {
    std::lock_guard lock(mutex_);
    stage_.assign(stage);
    point_.assign(point);
    last_progress_ = Steady::now();
    last_progress_wall_ = std::chrono::system_clock::now();
  }
  faults_.on_progress(stage);
}

std::string Watchdog::diagnostic() const {
  std::lock_guard lock(mutex_);
  const auto silent_s =
      std::chrono::duration_cast<std::chrono::seconds>(Steady::now() - last_progress_).count();
  const std::tm last = fmt::gmtime(std::chrono::system_clock::to_time_t(last_progress_wall_));
  return fmt::format(
      "tpbench: timeout: [rank {} on {}] stage {}, point {}: no progress for {} s (last progress {:%Y-%m-%dT%H:%M:%SZ}); "
      "ending the job (-T/--timeout {})",
      rank_, host_, stage_, point_, silent_s, last, timeout_s_);
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  const auto timeout = std::chrono::seconds(timeout_s_);
  while (!stopping_) {
    const auto deadline = last_progress_ + timeout;
    if (Steady::now() >= deadline) {
      lock.unlock();
      end_job();
    }
    wake_.wait_until(lock, deadline);
  }
}

void Watchdog::end_job() {
  std::fprintf(stderr, "%s\n", diagnostic().c_str());
  std::fflush(stderr);
  std::this_thread::sleep_for(kDiagnosticGrace);
  // _exit, not exit: the main thread may be blocked inside MPI or holding
  // locks that destructors would need. Results already flushed stay on disk
  // with complete=0; mpirun sees the non-zero status and ends the other ranks.
  _exit(kExitTimeout);
}

}  // namespace tpb
