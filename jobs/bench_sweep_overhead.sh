#!/usr/bin/env bash
# Harness overhead: on the same ranks, a bare MPI_Allreduce loop against the
# sweep harness at 8 B .. 16 MiB; prints harness/raw per size and the median.
# Usage: jobs/bench_sweep_overhead.sh [ranks=2] [repetitions=5] [iters=50]
# Run on an idle machine: other load inflates the raw loop's mean.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_BUILD_DIR:-$root/build}
ranks=${1:-2}
repetitions=${2:-5}
iters=${3:-50}
bench="$build/collectives/sweep_overhead_bench"
[[ -x "$bench" ]] || { echo "bench_sweep_overhead: $bench not built (run jobs/build.sh)" >&2; exit 2; }
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Timing knobs in effect, printed so the figures can be reproduced.
echo "# GLIBC_TUNABLES=${GLIBC_TUNABLES:-(unset)}  load: $(cut -d' ' -f1-3 /proc/loadavg)"
# More ranks than cores is allowed but makes every figure scheduler noise.
exec mpirun --oversubscribe -np "$ranks" "$bench" "$repetitions" "$iters"
