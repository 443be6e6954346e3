#include "results/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include "common/error.hpp"

namespace tpb {

FileLockState probe_file_lock(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return FileLockState::absent;
  FileLockState state = FileLockState::free;
  if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
    flock(fd, LOCK_UN);
  } else if (errno == EWOULDBLOCK) {
    state = FileLockState::held;
  } else if (errno == ENOLCK || errno == ENOSYS || errno == EOPNOTSUPP) {
    state = FileLockState::unsupported;
  }
  close(fd);
  return state;
}

void wait_for_file_lock(const std::string& path, double wait_s) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(wait_s);
  // Back off from 10 ms to 250 ms: a killed job's ranks release the lock
  // within a few hundred milliseconds, a live writer may hold it for minutes.
  auto pause = std::chrono::milliseconds(10);
  bool announced = false;
  for (;;) {
    switch (probe_file_lock(path)) {
      case FileLockState::free:
      case FileLockState::absent:
        return;
      case FileLockState::unsupported:
        std::fprintf(stderr,
                     "tpbench: note: %s is on a file system without file locks; if it does not open, set "
                     "HDF5_USE_FILE_LOCKING=FALSE\n",
                     path.c_str());
        return;
      case FileLockState::held:
        break;
    }
    if (Clock::now() >= deadline)
      throw UsageError(fmt::format("{}: still locked by a running process after {} s (--lock-wait)", path, wait_s));
    if (!announced) {
      std::fprintf(stderr, "tpbench: %s is still locked by a running process; waiting up to %g s (--lock-wait)\n",
                   path.c_str(), wait_s);
      announced = true;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(250));
  }
}

}  // namespace tpb
