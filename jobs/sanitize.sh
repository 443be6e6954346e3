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

# LeakSanitizer stays on for tpbench's own code. Open MPI, PMIx, hwloc and
# libevent keep allocations alive until exit by design (component registries,
# topology caches), which LeakSanitizer reports from every MPI process: those
# libraries are suppressed by name in tests/sanitizer/lsan.supp, nothing else.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizer/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

start=$(date +%s)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTPB_SANITIZE=ON -DTPB_CUDA=OFF >/dev/null
cmake --build "$build" -j "$jobs"
echo "jobs/sanitize.sh: ASan+UBSan build took $(( $(date +%s) - start )) s"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd "$build"
# Everything but the job-script tests (Slurm, two-host launch): they test the
# scripts around mpi_bench, which the tests here already run under ASan.
ctest --output-on-failure --timeout 600 -LE jobs "$@"
