#!/usr/bin/env bash
# The CPU backend's small-batch GEMM against OpenBLAS, BLIS, oneDNN and libxsmm
# (whichever the build found) on the step's projection shapes of llama-3.2-1b
# and llama-3.1-8b, m = 1, 2, 4, 8, 16: one process, one thread, one core,
# candidates interleaved, each as a fraction of max(bytes / bandwidth,
# flops / peak) measured in the same process, beside a loop that reads and
# computes at once with no layout (`overlap`, docs/MEASUREMENT.md). Each
# candidate's product is checked first; a wrong one prints `wrong` and exit 1.
# It closes with each model's kept and overlap per m, over the shapes.
# Usage: jobs/bench_cpu_gemm.sh [calls per candidate and point, default 15] [model, default both llama
# models; `smoke` runs two small shapes in seconds; `ridge` one 64 MiB weight at every m from 1 to 16,
# about a minute, to see where this core's flops start to limit and what reading and computing at once
# costs on either side]
# Needs about 7 GiB of memory (the 1B LM head, its copies and oneDNN's packed ones).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_BUILD_DIR:-$root/build}
reps=${1:-15}
model=${2:-}
bench="$build/tp_decoder/bench_cpu_gemm"
[[ -x "$bench" ]] || { echo "bench_cpu_gemm: $bench not built (cmake --build $build --target bench_cpu_gemm)" >&2; exit 2; }
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "bench_cpu_gemm: calls '$reps' is not a positive integer" >&2; exit 2; }
# The last core: one thread everywhere (OpenBLAS, BLIS and oneDNN read these).
core=$(( $(nproc) - 1 ))
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 BLIS_NUM_THREADS=1 OMP_PROC_BIND=true
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) | core $core | load: $(cut -d' ' -f1-3 /proc/loadavg)"
exec taskset -c "$core" "$bench" --reps "$reps" ${model:+--model "$model"}
