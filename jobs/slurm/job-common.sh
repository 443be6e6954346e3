# shellcheck shell=bash
# Sourced by the tpbench batch scripts, never run on its own: finds the
# build, chooses the backend from what the node has, makes the job's results
# folder and launches one rank per Slurm task.
#
# Environment read here (all optional; sbatch passes the submitting shell's
# environment to the job):
#   TPB_ROOT      checkout holding the build (set by the batch scripts; default: the submit directory)
#   TPB_BIN       the mpi_bench executable (default $TPB_ROOT/build/mpi_bench/mpi_bench)
#   TPB_OUT       parent of the per-job results folders (default $TPB_ROOT/out)
#   TPB_BACKEND   cuda | cpu: overrides the choice made from the GPUs the node has
#   TPB_LAUNCHER  srun (default) | mpirun: how ranks are started inside the allocation
#   TPB_SRUN_MPI  srun's --mpi plugin (default pmix; `srun --mpi=list` shows what a site offers)

TPB_BIN=${TPB_BIN:-$TPB_ROOT/build/mpi_bench/mpi_bench}
TPB_OUT=${TPB_OUT:-$TPB_ROOT/out}
TPB_LAUNCHER=${TPB_LAUNCHER:-srun}
TPB_SRUN_MPI=${TPB_SRUN_MPI:-pmix}

# shellcheck source=jobs/lib/launch-helpers.sh
source "$TPB_ROOT/jobs/lib/launch-helpers.sh"
tpb_require_bin "tpbench job"
tpb_choose_backend "tpbench job"

# OpenMP threads per rank on the CPU backend: the cores Slurm gave each task.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-${SLURM_CPUS_PER_TASK:-1}}

# One folder per job, named after the job id: several jobs never overwrite
# each other and a result traces back to `sacct -j ID`.
tpb_job_dir=$TPB_OUT/$SLURM_JOB_ID
mkdir -p "$tpb_job_dir"

# tpb_launch ARGS...: one mpi_bench rank per Slurm task, ranks placed in
# blocks (node 0 gets ranks 0..G-1) so TP groups of consecutive ranks stay
# within a node, each rank bound to its own cores.
tpb_launch() {
  case $TPB_LAUNCHER in
    srun)
      srun --mpi="$TPB_SRUN_MPI" --distribution=block:block --cpu-bind=cores --kill-on-bad-exit=1 \
           "$TPB_BIN" "$@"
      ;;
    mpirun)
      # Open MPI reads the allocation from Slurm and starts its daemons with srun.
      mpirun --map-by "ppr:${SLURM_NTASKS_PER_NODE:-1}:node:PE=${SLURM_CPUS_PER_TASK:-1}" --bind-to core \
             --rank-by slot --report-bindings "$TPB_BIN" "$@"
      ;;
    *)
      echo "tpbench job: TPB_LAUNCHER=$TPB_LAUNCHER is not valid (srun or mpirun)" >&2
      exit 2
      ;;
  esac
}

echo "tpbench job $SLURM_JOB_ID: nodes $SLURM_JOB_NODELIST, $SLURM_NTASKS ranks, backend $TPB_BACKEND" \
     "($tpb_comm_backend), launcher $TPB_LAUNCHER, results in $tpb_job_dir"
