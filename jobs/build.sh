#!/usr/bin/env bash
# Configures and builds tpbench into build/ (or $TPB_BUILD_DIR). Extra
# arguments go to cmake's configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=90.
# TPB_BUILD_TARGET builds one target instead of all (the quick start builds
# only mpi_bench, which still compiles and links the CUDA backend).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_BUILD_DIR:-$root/build}
jobs=${TPB_BUILD_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$jobs" ${TPB_BUILD_TARGET:+--target "$TPB_BUILD_TARGET"}
