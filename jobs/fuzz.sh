#!/usr/bin/env bash
# libFuzzer (clang 14) on the value parsers and the model-config loader, each
# for a bounded time ($TPB_FUZZ_SECONDS, default 20) from its seed corpus in
# tests/fuzz/corpus/. Builds into build-fuzz/ (or $TPB_FUZZ_BUILD_DIR).
# Called by jobs/test.sh; prints each target's executions count.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${TPB_BUILD_JOBS:-$(nproc)}
seconds=${TPB_FUZZ_SECONDS:-20}
targets=(parse model_config)

export ASAN_OPTIONS="detect_leaks=1"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
  -DCMAKE_CXX_COMPILER=clang++-14 -DTPB_FUZZ=ON -DTPB_CUDA=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/fuzz_}"

status=0
for target in "${targets[@]}"; do
  # New inputs go to a scratch corpus in the build tree; the seeds in the
  # source tree stay as committed.
  work="$build/fuzz-corpus/$target"
  mkdir -p "$work"
  log="$build/fuzz_$target.log"
  if "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 \
       -artifact_prefix="$build/fuzz_${target}_" "$work" "$root/tests/fuzz/corpus/$target" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (crash input and log: $build/fuzz_${target}_*, $log)"
    tail -n 40 "$log" >&2
    status=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "jobs/fuzz.sh: fuzz_$target: ${runs:-?} executions in ${seconds} s: $result"
done
exit $status
