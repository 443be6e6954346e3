# shellcheck shell=bash
# Sourced by the mpirun launchers, never run on its own: reads the hostfile,
# chooses the backend from what this node has, makes the run's results folder
# and starts one rank per device with explicit placement and binding.
#
# Environment (all optional):
#   TPB_BIN             the mpi_bench executable (default <checkout>/build/mpi_bench/mpi_bench)
#   TPB_OUT             parent of the per-run results folders (default <checkout>/out)
#   TPB_RUN_ID          the run's folder name (default run-<UTC time>-<pid>)
#   TPB_BACKEND         cuda | cpu: overrides the choice made from this node's GPUs
#   TPB_RANKS_PER_NODE  ranks on each host (default: this node's GPUs, or 2 without GPUs)
#   TPB_CORES_PER_RANK  cores bound to each rank (default: this node's cores / ranks per node)
#   TPB_MPIRUN_ARGS     extra mpirun arguments, e.g. "--mca btl tcp,self" or "--mca plm_rsh_agent ..."

if [ $# -lt 1 ] || [ ! -r "$1" ]; then
  echo "usage: $0 HOSTFILE   (one host per line, Open MPI format: 'node01 slots=8'; got '${1:-}')" >&2
  exit 2
fi
tpb_hostfile=$1
shift

tpb_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TPB_BIN=${TPB_BIN:-$tpb_root/build/mpi_bench/mpi_bench}
TPB_OUT=${TPB_OUT:-$tpb_root/out}
TPB_RUN_ID=${TPB_RUN_ID:-run-$(date -u +%Y%m%dT%H%M%SZ)-$$}
# shellcheck source=jobs/lib/launch-helpers.sh
source "$tpb_root/jobs/lib/launch-helpers.sh"
tpb_require_bin "$0"

# GPUs on this node (the hosts are assumed alike).
tpb_gpus=$(tpb_gpu_count)
tpb_choose_backend "$0"

TPB_RANKS_PER_NODE=${TPB_RANKS_PER_NODE:-$([ "$tpb_gpus" -gt 0 ] && echo "$tpb_gpus" || echo 2)}
TPB_CORES_PER_RANK=${TPB_CORES_PER_RANK:-$(( $(nproc) / TPB_RANKS_PER_NODE > 0 ? $(nproc) / TPB_RANKS_PER_NODE : 1 ))}
tpb_nodes=$(grep -cvE '^[[:space:]]*(#|$)' "$tpb_hostfile")
tpb_ranks=$((tpb_nodes * TPB_RANKS_PER_NODE))

# OpenMP threads per rank on the CPU backend: the cores each rank is bound to.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$TPB_CORES_PER_RANK}

tpb_run_dir=$TPB_OUT/$TPB_RUN_ID
mkdir -p "$tpb_run_dir"

# tpb_launch ARGS...: ranks filled host by host (ranks 0..R-1 on the first
# host), so TP groups of consecutive ranks stay within a host up to k = R;
# each rank bound to its own TPB_CORES_PER_RANK cores.
tpb_launch() {
  # mpirun forwards only OMPI_* variables to remote hosts: name the timing
  # knobs explicitly so every rank runs with the same settings.
  local forward=() name
  for name in $(compgen -e); do
    case $name in
      OMP_* | GOMP_* | OPENBLAS_* | NCCL_* | UCX_* | GLIBC_TUNABLES) forward+=(-x "$name") ;;
    esac
  done
  # shellcheck disable=SC2086  # TPB_MPIRUN_ARGS is a list of arguments
  mpirun --hostfile "$tpb_hostfile" -np "$tpb_ranks" \
         --map-by "ppr:$TPB_RANKS_PER_NODE:node:PE=$TPB_CORES_PER_RANK" --rank-by slot --bind-to core \
         --report-bindings "${forward[@]}" $TPB_MPIRUN_ARGS "$TPB_BIN" "$@"
}

echo "tpbench run $TPB_RUN_ID: $tpb_nodes hosts x $TPB_RANKS_PER_NODE ranks, $TPB_CORES_PER_RANK cores each," \
     "backend $TPB_BACKEND ($tpb_comm_backend), results in $tpb_run_dir"
