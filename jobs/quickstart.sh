#!/usr/bin/env bash
# Fresh Debian 12 machine -> installed, built, and the default CPU study run:
# 2 ranks, TP 1 and 2, Llama-3.2-1B shapes (2 of its 16 layers, so it runs in
# minutes on 2 cores), a grid of batch {1, 4} x context {256}. One mpirun does
# calibrate -> register -> measure -> verdict -> report; the study and its
# flags are jobs/lib/quickstart-study.sh (one timed step per visit, N = 80
# rounds judged once, a 150 s guard). It builds what it runs
# (jobs/lib/build-study-bench.sh: CPU only into build-cpu/ with no GPU
# visible, else with CUDA into build/) and says which in one line.
# Knobs: TPB_OUT (output directory), TPB_BUILD_DIR (build directory).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$("$root/jobs/lib/build-study-bench.sh" jobs/quickstart.sh)
out=${TPB_OUT:-$root/out/quickstart}
"$root/jobs/lib/quickstart-study.sh" "$build/mpi_bench/mpi_bench" "$out"
echo "report: $out/report.md"
