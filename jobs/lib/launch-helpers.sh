# shellcheck shell=bash
# Sourced by jobs/mpirun/launch-common.sh and jobs/slurm/job-common.sh, never
# run on its own: what both launchers decide the same way.

# tpb_require_bin WHO: stops with exit 2 unless $TPB_BIN is an executable.
tpb_require_bin() {
  if [ ! -x "$TPB_BIN" ]; then
    echo "$1: no mpi_bench at $TPB_BIN (build first with jobs/build.sh, or set TPB_BIN)" >&2
    exit 2
  fi
}

# tpb_gpu_count: GPUs this node shows (all of them, or only the job's own
# where Slurm constrains devices with cgroups); 0 without nvidia-smi.
tpb_gpu_count() {
  { nvidia-smi -L 2>/dev/null || true; } | grep -c '^GPU ' || true
}

# tpb_choose_backend WHO: TPB_BACKEND is cuda when the node has a GPU and cpu
# otherwise unless already set; the communicator follows it (NCCL on GPUs,
# MPI on CPUs) in tpb_comm_backend.
# shellcheck disable=SC2034  # tpb_comm_backend is read by the scripts that source this
tpb_choose_backend() {
  TPB_BACKEND=${TPB_BACKEND:-$([ "$(tpb_gpu_count)" -gt 0 ] && echo cuda || echo cpu)}
  case $TPB_BACKEND in
    cuda) tpb_comm_backend=nccl ;;
    cpu) tpb_comm_backend=mpi ;;
    *) echo "$1: TPB_BACKEND=$TPB_BACKEND is not valid (cuda or cpu)" >&2; exit 2 ;;
  esac
}

# tpb_divisors N: "1,2,...,N", every TP degree a launch of N ranks can hold.
tpb_divisors() {
  local n=$1 k list=""
  for ((k = 1; k <= n; k++)); do
    if [ $((n % k)) -eq 0 ]; then list="$list${list:+,}$k"; fi
  done
  echo "$list"
}
# tpb_set_study_flags RANKS: the study's `mpi_bench run` flags, from the
# environment, into the array tpb_study_flags:
#   TPB_MODEL     a Hugging Face config.json (required)
#   TPB_TP        TP degrees (default: every k that divides RANKS)
#   TPB_BATCH     batch sizes (default 1,8,32)
#   TPB_CONTEXT   context lengths, tokens in the KV cache (default 512,4096)
#   TPB_RUN_ARGS  more `mpi_bench run` flags, e.g. "-n 50 --layers 8"
# shellcheck disable=SC2034  # tpb_study_flags is read by the scripts that source this
tpb_set_study_flags() {
  # shellcheck disable=SC2206  # TPB_RUN_ARGS is a list of flags
  tpb_study_flags=(--model "${TPB_MODEL:?set TPB_MODEL to a model config.json}" --backend "$TPB_BACKEND"
    --tp "${TPB_TP:-$(tpb_divisors "$1")}" --batch "${TPB_BATCH:-1,8,32}" --context "${TPB_CONTEXT:-512,4096}"
    ${TPB_RUN_ARGS:-})
}
