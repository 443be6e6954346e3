#!/usr/bin/env bash
# Reruns the quick start's study N times on a built mpi_bench and tabulates
# every run's verdicts: does the instrument reproduce its own answers? With
# --load, one busy loop pinned to the second core runs beside each study, as a
# neighbour would.
#
#   jobs/verdict_reruns.sh N [--load]
#
# Knobs: TPB_BUILD_DIR (default build-cpu/, then build/), TPB_OUT (default out/reruns).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: jobs/verdict_reruns.sh N [--load]  (N: runs, a whole number >= 1; got '${1:-}')" >&2
  exit 2
fi
runs=$1
load=${2:-}
if [ -n "$load" ] && [ "$load" != --load ]; then
  echo "jobs/verdict_reruns.sh: unknown option '$load' (expected --load)" >&2
  exit 2
fi
build=${TPB_BUILD_DIR:-$root/build-cpu}
[ -x "$build/mpi_bench/mpi_bench" ] || build=${TPB_BUILD_DIR:-$root/build}
bench=$build/mpi_bench/mpi_bench
if [ ! -x "$bench" ]; then
  echo "jobs/verdict_reruns.sh: no $bench: run jobs/quickstart.sh or jobs/build.sh first (or set TPB_BUILD_DIR)" >&2
  exit 2
fi
out=${TPB_OUT:-$root/out/reruns}
mkdir -p "$out"
busy=""
stop_busy() { if [ -n "$busy" ]; then kill "$busy" 2>/dev/null || true; wait "$busy" 2>/dev/null || true; busy=""; fi; }
trap stop_busy EXIT
files=()
for i in $(seq 1 "$runs"); do
  if [ -n "$load" ]; then
    taskset -c 1 bash -c 'while :; do :; done' &
    busy=$!
  fi
  start=$SECONDS
  if ! "$root/jobs/lib/quickstart-study.sh" "$bench" "$out/run$i" >"$out/run$i.log" 2>&1; then
    echo "run $i failed; its log: $out/run$i.log" >&2
    exit 1
  fi
  stop_busy
  echo "run $i: $((SECONDS - start)) s${load:+ (one busy loop on core 1)}"
  files+=("$out/run$i/study.h5")
done
/usr/bin/python3 "$root/jobs/lib/verdict_table.py" "${files[@]}"
