#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer: builds tpbench CPU-only into
# build-sanitize/ (or $TPB_SANITIZE_BUILD_DIR) and runs the unit, multi-rank
# and reliability tests there: jobs/sanitize.sh [extra ctest arguments].
# CUDA is off here because nvcc-compiled code is not instrumented; the main
# build (jobs/build.sh) compiles it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_SANITIZE_BUILD_DIR:-$root/build-sanitize}
jobs=${TPB_BUILD_JOBS:-$(nproc)}
. "$root/jobs/lib/phases.sh"

# Single-process tests (label unit) run with LeakSanitizer on; tests/sanitizer/
# lsan.supp names the MPI stack's libraries, which keep allocations (component
# registries, topology caches) until exit by design. In processes that run
# MPI_Init (the multi-rank and CLI tests), Open MPI unloads its dlopen'ed MCA
# components at MPI_Finalize, so their leftover allocations appear as frames
# in "<unknown module>" and cannot be suppressed by library name: there
# LeakSanitizer is off, while AddressSanitizer's memory-error checks and UBSan
# stay on.
sanitizer_options="abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizer/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# -O1 -g1 (AddressSanitizer asks for -O1 or more): instrumented code at
# -O2 -g takes about twice as long to compile (measured here: 129 s against
# 61 s for results/report.cpp), and line tables are all a report needs.
start=$(date +%s)
tpb_phase "sanitizer build" cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTPB_SANITIZE=ON -DTPB_CUDA=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" >/dev/null
tpb_phase "sanitizer build" cmake --build "$build" -j "$jobs"
echo "jobs/sanitize.sh: ASan+UBSan build took $(( $(date +%s) - start )) s"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd "$build"
ASAN_OPTIONS="detect_leaks=1:$sanitizer_options" tpb_phase "sanitizer tests" ctest --output-on-failure --timeout 600 -L unit -j "$jobs" "$@"
# Then every multi-rank, CLI and reliability test but the job-script tests
# (Slurm, two-host launch: they test the scripts around mpi_bench) and the GPU
# tests (they only skip without a device).
ASAN_OPTIONS="detect_leaks=0:$sanitizer_options" tpb_phase "sanitizer tests" ctest --output-on-failure --timeout 600 -LE 'jobs|unit|gpu|simulator' -j "$jobs" "$@"
