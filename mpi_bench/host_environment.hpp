#pragma once
// What the host was doing and how it was set up when a study ran, for /meta:
// CPU model, frequency governor, SMT, load average, cgroup CPU quota, clock
// source and each rank's CPU binding (results/environment_file.hpp stores it).
#include "results/environment_file.hpp"

namespace tpb {

// Collective over MPI_COMM_WORLD (the binding is gathered); complete on rank 0.
HostEnvironment collect_host_environment();

}  // namespace tpb
