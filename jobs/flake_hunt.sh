#!/usr/bin/env bash
# Runs chosen tests N times in a row with every core kept busy, to find tests
# that fail only under load (CI machines are loaded; races hide on idle ones).
#
#   jobs/flake_hunt.sh N [ctest selection ...]
#   jobs/flake_hunt.sh 20 -L reliability -R 'kill|throw'
#   jobs/flake_hunt.sh 3 -L 'mpi|cli|reliability|slurm|multinode'
#
# The selection is passed to ctest as it is (-R, -L, -E ...). Each pass runs the
# selection once, one test at a time, in the build tree ($TPB_BUILD_DIR, default
# build/; build it first). A busy loop per core (nproc of them) runs for the
# whole hunt. Prints the tests selected, the load average sampled during the
# runs, the time taken and the failures per test; exits 1 when any test failed
# in any pass. Logs of failed passes stay in $TPB_FLAKE_LOGS (default
# build/flake-hunt/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_BUILD_DIR:-$root/build}
logs=${TPB_FLAKE_LOGS:-$build/flake-hunt}

if [ $# -lt 1 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: jobs/flake_hunt.sh N [ctest selection ...]  (N: passes, a whole number >= 1; got '${1:-}')" >&2
  exit 2
fi
passes=$1
shift
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "jobs/flake_hunt.sh: no test tree in $build: run jobs/build.sh first (or set TPB_BUILD_DIR)" >&2
  exit 2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$logs"

mapfile -t tests < <(cd "$build" && ctest -N "$@" | sed -n 's/^ *Test *#[0-9]*: //p')
if [ ${#tests[@]} -eq 0 ]; then
  echo "jobs/flake_hunt.sh: the selection '$*' names no test" >&2
  exit 2
fi
echo "# flake hunt: ${#tests[@]} test(s) x $passes pass(es), $(nproc) busy loop(s) as background load"
printf '#   %s\n' "${tests[@]}"

# The load: one busy loop per core, and a sampler of /proc/loadavg.
load_pids=()
for _ in $(seq "$(nproc)"); do
  bash -c 'while :; do :; done' &
  load_pids+=($!)
done
samples=$(mktemp)
( while :; do cut -d' ' -f1 /proc/loadavg >>"$samples"; sleep 5; done ) &
load_pids+=($!)
trap 'kill "${load_pids[@]}" 2>/dev/null || true; rm -f "$samples"' EXIT

declare -A failures=()
started=$(date +%s)
for pass in $(seq "$passes"); do
  log="$logs/pass-$pass.log"
  if (cd "$build" && ctest "$@" --output-on-failure --timeout 600) >"$log" 2>&1; then
    rm -f "$log"
    echo "# pass $pass/$passes: all passed"
    continue
  fi
  # ctest lists each failed test as "  N - name (Failed)" after "The following tests FAILED:".
  mapfile -t failed < <(sed -n '/The following tests FAILED:/,$ s/^[[:space:]]*[0-9]* - \([^ ]*\) .*/\1/p' "$log")
  for name in "${failed[@]}"; do failures[$name]=$(( ${failures[$name]:-0} + 1 )); done
  echo "# pass $pass/$passes: failed: ${failed[*]:-(ctest itself failed)} (log: $log)"
done
elapsed=$(( $(date +%s) - started ))

load=$(sort -n "$samples" | awk '{v[NR]=$1} END {if (NR) printf "min %s, median %s, max %s over %d samples", v[1], v[int((NR+1)/2)], v[NR], NR}')
echo "# load average (1 min) during the hunt: ${load:-not sampled}"
echo "# took ${elapsed} s for $passes pass(es) of ${#tests[@]} test(s)"
total=0
echo "# failures per test:"
for name in "${tests[@]}"; do
  count=${failures[$name]:-0}
  total=$((total + count))
  [ "$count" -eq 0 ] || echo "#   $name: $count of $passes"
done
echo "# $total failure(s) in $(( passes * ${#tests[@]} )) test runs"
[ "$total" -eq 0 ]
