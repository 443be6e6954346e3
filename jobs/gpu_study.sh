#!/usr/bin/env bash
# The study on one GPU node: one rank per visible GPU, every TP degree that
# divides the GPU count, Llama-3.1-8B shapes (all layers), bf16 on CUDA with
# NCCL. Usage: jobs/gpu_study.sh [OUT_DIR] (default out/gpu_study).
# Knobs: TPB_MODEL, TPB_LAYERS (0 = all), TPB_BATCH, TPB_CONTEXT, TPB_BUILD_DIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_BUILD_DIR:-$root/build}
out=${1:-$root/out/gpu_study}
gpus=$(nvidia-smi -L | wc -l)
if [ "$gpus" -lt 1 ]; then echo "jobs/gpu_study.sh: no GPU visible" >&2; exit 2; fi
tp=1; k=2
while [ "$k" -le "$gpus" ]; do
  if [ $((gpus % k)) -eq 0 ]; then tp="$tp,$k"; fi
  k=$((k * 2))
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
mpirun -np "$gpus" "$build/mpi_bench/mpi_bench" run --backend cuda \
  --model "${TPB_MODEL:-$root/tp_decoder/configs/llama-3.1-8b.json}" --layers "${TPB_LAYERS:-0}" \
  --tp "$tp" --batch "${TPB_BATCH:-1,8,32}" --context "${TPB_CONTEXT:-512,4096}" -w 5 -n 50 \
  -o "$out" --overwrite
echo "report: $out/report.md"
