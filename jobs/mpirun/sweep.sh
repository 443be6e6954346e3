#!/usr/bin/env bash
# All-reduce sweep across the hosts of a hostfile, one rank per GPU (NCCL) or
# TPB_RANKS_PER_NODE ranks per host (MPI on CPUs), for every TP degree in TPB_TP.
# Results: $TPB_OUT/<run id>/sweep.h5 and the printed table sweep.txt.
#
#   jobs/mpirun/sweep.sh hosts.txt
#   TPB_MPIRUN_ARGS="--mca btl tcp,self" TPB_TP=1,2 jobs/mpirun/sweep.sh hosts.txt
#
# Environment, besides launch-common.sh's:
#   TPB_SWEEP_ARGS  sizes and repetitions in `mpi_bench sweep` flags (default 8 B..256 MiB doubling, 50 iterations, 5 warm-up)
#   TPB_TP          TP degrees (default: every k that divides the rank count)
set -euo pipefail
# shellcheck source=jobs/mpirun/launch-common.sh
source "$(dirname "$0")/launch-common.sh"

# CPU backend: from 32 MiB up Open MPI's temporary buffer is mmap-ed per call
# (a ~10x step); export GLIBC_TUNABLES before launching to lift it (README:
# "The 32 MiB cliff"). Its value is recorded in /meta either way.
TPB_SWEEP_ARGS=${TPB_SWEEP_ARGS:--b 8 -e 256M -f 2 -n 50 -w 5}
TPB_TP=${TPB_TP:-}

# shellcheck disable=SC2086  # TPB_SWEEP_ARGS is a list of flags
tpb_launch sweep $TPB_SWEEP_ARGS --backend "$tpb_comm_backend" ${TPB_TP:+--tp "$TPB_TP"} -o "$tpb_run_dir/sweep.h5" \
  | tee "$tpb_run_dir/sweep.txt"
