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
# Environment, besides launch-common.sh's:
#   TPB_MODEL    a Hugging Face config.json (required)
#   TPB_TP       TP degrees (default: every k that divides the rank count)
#   TPB_BATCH    batch sizes (default 1,8,32)
#   TPB_CONTEXT  context lengths, tokens in the KV cache (default 512,4096)
#   TPB_RUN_ARGS more `mpi_bench run` flags, e.g. "-n 50 --layers 8"
set -euo pipefail
# shellcheck source=jobs/mpirun/launch-common.sh
source "$(dirname "$0")/launch-common.sh"

TPB_MODEL=${TPB_MODEL:?set TPB_MODEL to a model config.json}
TPB_TP=${TPB_TP:-$(tpb_divisors "$tpb_ranks")}
TPB_BATCH=${TPB_BATCH:-1,8,32}
TPB_CONTEXT=${TPB_CONTEXT:-512,4096}
TPB_RUN_ARGS=${TPB_RUN_ARGS:-}

# shellcheck disable=SC2086  # TPB_RUN_ARGS is a list of flags
tpb_launch run --model "$TPB_MODEL" --backend "$TPB_BACKEND" --tp "$TPB_TP" --batch "$TPB_BATCH" \
  --context "$TPB_CONTEXT" $TPB_RUN_ARGS -o "$tpb_run_dir"
