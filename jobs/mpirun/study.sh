#!/usr/bin/env bash
# The whole study (calibrate, register, measure, verdict, report) across the
# hosts of a hostfile, one rank per GPU (CUDA) or TPB_RANKS_PER_NODE ranks per
# host (CPU). Ranks fill a host before the next, so TP-k with k up to the
# ranks per host stays inside a host.
# Results: $TPB_OUT/<run id>/ holds the results file and the report.
#
#   TPB_MODEL=path/to/config.json jobs/mpirun/study.sh hosts.txt
#   TPB_MODEL=... TPB_TP=1,2,4 TPB_BATCH=1,8 TPB_CONTEXT=512 jobs/mpirun/study.sh hosts.txt
#
# Environment, besides launch-common.sh's: the model and the grid, TPB_MODEL
# (required), TPB_TP, TPB_BATCH, TPB_CONTEXT and TPB_RUN_ARGS
# (jobs/lib/launch-helpers.sh, tpb_set_study_flags).
set -euo pipefail
# shellcheck source=jobs/mpirun/launch-common.sh
source "$(dirname "$0")/launch-common.sh"

tpb_set_study_flags "$tpb_ranks"
tpb_launch run "${tpb_study_flags[@]}" -o "$tpb_run_dir"
