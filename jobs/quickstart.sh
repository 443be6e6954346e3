#!/usr/bin/env bash
# Fresh Debian 12 machine -> installed, built, and the default CPU study run:
# 2 ranks, TP 1 and 2, Llama-3.2-1B shapes (2 of its 16 layers, so it runs in
# minutes on 2 cores), a grid of batch {1, 4} x context {256}. One mpirun does
# calibrate -> register -> measure -> verdict -> report; the study and its
# flags are jobs/lib/quickstart-study.sh (one timed step per visit, rounds
# planned from the calibration's spread, a 100 s measurement budget).
# It builds what it runs: with no GPU visible it builds mpi_bench without CUDA
# into build-cpu/, else with the CUDA backend (when nvcc is found) into build/,
# and says which in one line.
# Knobs: TPB_OUT (output directory), TPB_BUILD_DIR (build directory).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/jobs/setup.sh" quickstart
if [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1; then
  build=${TPB_BUILD_DIR:-$root/build}
  cuda=()
else
  build=${TPB_BUILD_DIR:-$root/build-cpu}
  cuda=(-DTPB_CUDA=OFF)
fi
log="$build/quickstart-build.log"
mkdir -p "$build"
if ! TPB_BUILD_DIR="$build" TPB_BUILD_TARGET=mpi_bench "$root/jobs/build.sh" "${cuda[@]}" >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "jobs/quickstart.sh: the build failed; its log: $log" >&2
  exit 1
fi
# compile_commands.json is rewritten by every configure, so it says what this
# build has.
if grep -q 'TPB_HAVE_CUDA=1' "$build/compile_commands.json"; then
  echo "built mpi_bench with the CUDA backend in $build (CPU only: TPB_BUILD_DIR=$root/build-cpu jobs/build.sh -DTPB_CUDA=OFF)"
elif [ ${#cuda[@]} -eq 0 ]; then
  echo "built mpi_bench CPU only in $build: no nvcc found (the CUDA backend: install the CUDA toolkit, then jobs/build.sh -DTPB_CUDA=ON)"
else
  echo "built mpi_bench CPU only in $build: no GPU visible (the CUDA backend too, as the tests build it: TPB_BUILD_TARGET=mpi_bench jobs/build.sh, into build/)"
fi
out=${TPB_OUT:-$root/out/quickstart}
"$root/jobs/lib/quickstart-study.sh" "$build/mpi_bench/mpi_bench" "$out"
echo "report: $out/report.md"
