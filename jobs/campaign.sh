#!/usr/bin/env bash
# A campaign of the quick start's study on this machine (issue 44): seals the
# design (jobs/lib/quickstart-flags.sh, L = N launches) into a campaign
# directory, runs N launches one after another with mpirun (2 ranks each, as
# the quick start does), then pools them into one verdict about the machine
# and prints the report's path. Builds what it runs, as jobs/quickstart.sh
# (jobs/lib/build-study-bench.sh). Knobs: TPB_OUT (the campaign directory;
# default out/campaign-<UTC time>), TPB_BUILD_DIR (build directory).
#
#   jobs/campaign.sh N
set -euo pipefail
if [ $# -ne 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 2 ]; then
  echo "usage: jobs/campaign.sh N   (N >= 2 launches)" >&2
  exit 2
fi
launches=$1
root=$(cd "$(dirname "$0")/.." && pwd)
build=$("$root/jobs/lib/build-study-bench.sh" jobs/campaign.sh)
bench=$build/mpi_bench/mpi_bench
out=${TPB_OUT:-$root/out/campaign-$(date -u +%Y%m%dT%H%M%SZ)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}  # one OpenMP thread per rank, as the quick start
# shellcheck source=jobs/lib/quickstart-flags.sh
source "$root/jobs/lib/quickstart-flags.sh"
"$bench" campaign init "$out" --launches "$launches" "${tpb_quickstart_flags[@]}"
for ((i = 1; i <= launches; i++)); do
  echo "== launch $i of $launches"
  # A launch that fails is named by the pooled verdict; the campaign goes on.
  mpirun --oversubscribe -np 2 "$bench" run --campaign "$out" --launch "$i" "${tpb_quickstart_flags[@]}" ||
    echo "jobs/campaign.sh: launch $i failed (exit $?)" >&2
done
"$bench" verdict --campaign "$out"
echo "report: $out/report.md"
