#!/usr/bin/env bash
# The small-batch GEMM's goals judged over many launches of the bench, each
# goal on an interval, never on one launch's point. One launch's fraction of
# the limit moves with the machine's phase and the memory the launch is given
# (docs/MEASUREMENT.md, "The goals over launches"), so the launches run one
# after another and jobs/lib/gemm_goals.py gives, per shape and m, the median
# over launches with its distribution-free 95 % interval, and a verdict per
# goal: MET (the interval at or above it), MISSED (below it) or INCONCLUSIVE.
#
#   jobs/bench_cpu_gemm_goals.sh [launches, default 10] [calls per candidate, default 15]
#
# About 4 minutes a launch on a 2-core machine. Knobs: TPB_BUILD_DIR (default
# build/), TPB_OUT (default out/gemm-goals; the launch files of an earlier job
# there are removed first, so that only this job's launches are judged). Exit 0
# when every goal is MET, 1 otherwise, 2 on bad arguments or input.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
launches=${1:-10}
reps=${2:-15}
[[ "$launches" =~ ^[1-9][0-9]*$ ]] || { echo "bench_cpu_gemm_goals: launches '$launches' is not a positive integer" >&2; exit 2; }
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "bench_cpu_gemm_goals: calls '$reps' is not a positive integer" >&2; exit 2; }
out=${TPB_OUT:-$root/out/gemm-goals}
mkdir -p "$out"
rm -f "$out"/launch-*.txt
files=()
for i in $(seq 1 "$launches"); do
  start=$SECONDS
  file=$out/launch-$i.txt
  # A launch that fails (a wrong product, a crash) stops the job: its goals
  # would be judged on a table it did not finish.
  if ! "$root/jobs/bench_cpu_gemm.sh" "$reps" llama-3.2-1b >"$file" 2>&1; then
    echo "bench_cpu_gemm_goals: launch $i failed; its output: $file" >&2
    exit 1
  fi
  echo "launch $i of $launches: $((SECONDS - start)) s, $file"
  files+=("$file")
done
exec /usr/bin/python3 "$root/jobs/lib/gemm_goals.py" "${files[@]}"
