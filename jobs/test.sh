#!/usr/bin/env bash
# Builds tpbench and runs the whole test suite (unit, multi-rank, CLI, Slurm).
# GPU tests skip when no device is visible. Ends with a table of where the time
# went and why tests skipped (jobs/lib/phase_table.py), printed whether or not
# a phase failed; the setup row comes from .ci/run (TPB_SETUP_MS).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_BUILD_DIR:-$root/build}
. "$root/jobs/lib/phases.sh"
mkdir -p "$build"
export TPB_PHASE_LOG="$build/phases.tsv"
: >"$TPB_PHASE_LOG"
if [ -n "${TPB_SETUP_MS:-}" ]; then
  printf 'setup\t%s\tok\n' "$TPB_SETUP_MS" >>"$TPB_PHASE_LOG"
fi
rm -f "$build/ctest-junit.xml"
trap '/usr/bin/python3 "$root/jobs/lib/phase_table.py" "$TPB_PHASE_LOG" "$build/ctest-junit.xml" || true' EXIT
"$root/jobs/build.sh"
# Open MPI refuses root without these; tests with more ranks than cores
# need oversubscription (each ctest sets it too).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd "$build"
# ctest prints no reason for a skipped test (the GPU tests on a host without a
# GPU): its JUnit file has them, and the phase table names each reason.
# Tests run as many at a time as there are cores ($TPB_TEST_JOBS overrides):
# each must pass under load anyway, and many spend their time waiting
# (lock rows, watchdog bounds, the bare-root test's download).
tpb_phase ctest ctest --output-on-failure --timeout 600 --output-junit ctest-junit.xml \
  -j "${TPB_TEST_JOBS:-$(nproc)}" "$@"
# Then the same tests under AddressSanitizer + UBSan (CPU-only tree) and a
# bounded libFuzzer run of the parsers and the config loader
# (docs/RELIABILITY.md). TPB_SANITIZE=0 / TPB_FUZZ_SECONDS=0 skip them.
if [ "${TPB_SANITIZE:-1}" != 0 ]; then
  "$root/jobs/sanitize.sh"
fi
if [ "${TPB_FUZZ_SECONDS:-20}" != 0 ]; then
  tpb_phase fuzz "$root/jobs/fuzz.sh"
fi
