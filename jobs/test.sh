#!/usr/bin/env bash
# Builds tpbench and runs the whole test suite (unit, multi-rank, CLI, Slurm).
# GPU tests skip when no device is visible.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_BUILD_DIR:-$root/build}
"$root/jobs/build.sh"
# Open MPI refuses root without these; tests with more ranks than cores
# need oversubscription (each ctest sets it too).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd "$build"
ctest --output-on-failure --timeout 600 "$@"
# Then the same tests under AddressSanitizer + UBSan (CPU-only tree) and a
# bounded libFuzzer run of the parsers and the config loader
# (docs/RELIABILITY.md). TPB_SANITIZE=0 / TPB_FUZZ_SECONDS=0 skip them.
if [ "${TPB_SANITIZE:-1}" != 0 ]; then
  "$root/jobs/sanitize.sh"
fi
if [ "${TPB_FUZZ_SECONDS:-20}" != 0 ]; then
  "$root/jobs/fuzz.sh"
fi
