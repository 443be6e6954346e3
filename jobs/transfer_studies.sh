#!/usr/bin/env bash
# Calibrate once, predict others: runs a study of each target model on this
# machine with `transfer` registered from a calibrated study A (the quick
# start's, say), and prints each one's transfer table and verdicts. The
# targets: qwen2.5-7b (1 of its 28 layers), mistral-7b-v0.3 (2 of 32) and the
# mixture-of-experts qwen1.5-moe-a2.7b (2 of 24), at TP 1 and 2, batch {1, 4},
# context 256: A's grid, inside which the fit holds (docs/TRANSFER.md).
#
#   jobs/transfer_studies.sh A_STUDY.h5 [model ...]
#
# Knobs: TPB_BUILD_DIR (default build-cpu/, then build/), TPB_OUT (default
# out/transfer), TPB_TIME_BUDGET (seconds of measurement per study, default 120).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
  echo "usage: jobs/transfer_studies.sh A_STUDY.h5 [model ...]  (A: a calibrated study file; got '${1:-}')" >&2
  exit 2
fi
a=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(qwen2.5-7b:1 mistral-7b-v0.3:2 qwen1.5-moe-a2.7b:2)
build=${TPB_BUILD_DIR:-$root/build-cpu}
[ -x "$build/mpi_bench/mpi_bench" ] || build=${TPB_BUILD_DIR:-$root/build}
bench=$build/mpi_bench/mpi_bench
if [ ! -x "$bench" ]; then
  echo "jobs/transfer_studies.sh: no $bench: run jobs/build.sh first (or set TPB_BUILD_DIR)" >&2
  exit 2
fi
out=${TPB_OUT:-$root/out/transfer}
budget=${TPB_TIME_BUDGET:-120}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p "$out"
for target in "${targets[@]}"; do
  model=${target%%:*}
  layers=${target#*:}
  [ "$layers" != "$target" ] || layers=1
  config=$root/tp_decoder/configs/$model.json
  if [ ! -f "$config" ]; then
    echo "jobs/transfer_studies.sh: no config '$config' (model[:layers], e.g. qwen2.5-7b:1)" >&2
    exit 2
  fi
  start=$SECONDS
  mpirun --oversubscribe -np 2 "$bench" run --model "$config" --layers "$layers" \
    --tp 1,2 --batch 1,4 --context 256 -w 0 -n 1 --sweep-iters 20 --calibration-rounds 10 \
    --rounds 40 --time-budget "$budget" --transfer-from "$a" -o "$out/$model" --overwrite >"$out/$model.log" 2>&1 ||
    { echo "$model: the study failed; its log: $out/$model.log" >&2; exit 1; }
  echo "## $model ($layers layers): $((SECONDS - start)) s, $(grep -c 'measure: round' "$out/$model.log") rounds"
  grep -E '^  transfer ' "$out/$model.log" || true
  sed -n '/^## Transfer/,/^## [A-Z]/p' "$out/$model/report.md" | grep -E '^\| [12] \|' || true
done
