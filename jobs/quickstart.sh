#!/usr/bin/env bash
# Fresh Debian 12 machine -> installed, built, and the main job run on the
# embedded CPU default (2 ranks).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/jobs/setup.sh"
"$root/jobs/build.sh" >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=${TPB_OUT:-$root/out/quickstart}
mkdir -p "$out"
mpirun --oversubscribe -np 2 "$root/build/mpi_bench/mpi_bench" info -o "$out/info.h5" --overwrite
