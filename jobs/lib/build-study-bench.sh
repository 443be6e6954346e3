#!/usr/bin/env bash
# Builds the mpi_bench a study on this machine runs, for jobs/quickstart.sh
# and jobs/campaign.sh: installs what the quick start needs, then with no GPU
# visible builds mpi_bench without CUDA into build-cpu/, else with the CUDA
# backend (when nvcc is found) into build/, and says which in one line on
# stderr. An up-to-date build costs a second. Prints the build directory.
#
#   build=$(jobs/lib/build-study-bench.sh CALLER)   # TPB_BUILD_DIR overrides the directory
set -euo pipefail
caller=${1:?usage: jobs/lib/build-study-bench.sh CALLER}
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/jobs/setup.sh" quickstart >&2
if [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1; then
  build=${TPB_BUILD_DIR:-$root/build}
  cuda=()
else
  build=${TPB_BUILD_DIR:-$root/build-cpu}
  cuda=(-DTPB_CUDA=OFF)
fi
log="$build/study-build.log"
mkdir -p "$build"
if ! TPB_BUILD_DIR="$build" TPB_BUILD_TARGET=mpi_bench "$root/jobs/build.sh" "${cuda[@]}" >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "$caller: the build failed; its log: $log" >&2
  exit 1
fi
# compile_commands.json is rewritten by every configure, so it says what this
# build has.
if grep -q 'TPB_HAVE_CUDA=1' "$build/compile_commands.json"; then
  echo "built mpi_bench with the CUDA backend in $build (CPU only: TPB_BUILD_DIR=$root/build-cpu jobs/build.sh -DTPB_CUDA=OFF)" >&2
elif [ ${#cuda[@]} -eq 0 ]; then
  echo "built mpi_bench CPU only in $build: no nvcc found (the CUDA backend: install the CUDA toolkit, then jobs/build.sh -DTPB_CUDA=ON)" >&2
else
  echo "built mpi_bench CPU only in $build: no GPU visible (the CUDA backend too, as the tests build it: TPB_BUILD_TARGET=mpi_bench jobs/build.sh, into build/)" >&2
fi
echo "$build"
