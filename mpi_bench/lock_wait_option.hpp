#pragma once
// --lock-wait for the commands that read a results file (verify, verdict,
// report): how long to wait for a dying job to release HDF5's lock on it.
#include <CLI/CLI.hpp>

namespace tpb {

inline constexpr double kDefaultLockWaitSeconds = 30.0;

inline void add_lock_wait_option(CLI::App& app, double& seconds) {
  app.add_option("--lock-wait", seconds,
                 "Seconds to wait while another process (a job still ending) holds the file's lock")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

}  // namespace tpb
