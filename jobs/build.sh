#!/usr/bin/env bash
# Configures and builds tpbench into build/ (or $TPB_BUILD_DIR). Extra
# arguments go to cmake's configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=90.
# TPB_BUILD_TARGET builds one target instead of all (the quick start builds
# only mpi_bench). With TPB_PHASE_LOG set, the configure and build times go
# there (jobs/lib/phases.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_BUILD_DIR:-$root/build}
jobs=${TPB_BUILD_JOBS:-$(nproc)}
. "$root/jobs/lib/phases.sh"
# Ninja for a new build folder when it is installed: it keeps both cores busy
# across library boundaries, where make idles one. A folder already configured
# keeps its generator.
generator=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
tpb_phase configure cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
tpb_phase build cmake --build "$build" -j "$jobs" ${TPB_BUILD_TARGET:+--target "$TPB_BUILD_TARGET"}
