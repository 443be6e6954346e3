#!/usr/bin/env bash
# ctest (label slurm): the batch scripts on a real Slurm. Brings up the
# one-node cluster of jobs/slurm/local-cluster.sh (with two fake GPUs, so
# --gpus-per-node is scheduled), submits the sweep and study scripts with
# `sbatch --wait` on the CPU backend, checks each job's results file is
# complete and carries the job's metadata, checks that a job cancelled
# mid-run leaves a readable file marked incomplete, runs the sweep again on a
# node without GPUs (a CPU-only partition), and brings the cluster down, also
# when a step fails.
#
# usage: slurm_jobs_test.sh SOURCE_DIR MPI_BENCH WORK_DIR
# Exits 77 (ctest SKIP_RETURN_CODE) with the reason when it cannot run here.
. "$(dirname "$0")/job_test_lib.sh"
# A cluster of its own (folder and ports), apart from one a user started.
export TPB_LOCAL_SLURM_DIR=${TMPDIR:-/tmp}/tpbench-slurm-test TPB_SLURM_PORT=16837 TPB_FAKE_GPUS=2
use_local_slurm

"$cluster" down >/dev/null  # what an interrupted earlier run left behind
"$cluster" up
node=$(hostname -s)

rm -rf "$work"
mkdir -p "$work"
# What every job gets (sbatch passes this environment on): the checkout and
# build under test, results under $work/out, the CPU backend even if this
# machine has a GPU, one OpenMP thread per rank, Open MPI allowed as root.
export TPB_ROOT=$src TPB_BIN=$bin TPB_OUT=$work/out TPB_BACKEND=cpu OMP_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Two ranks on this node's cores; the header's --cpus-per-task and --time are
# sized for real nodes. GPU jobs take the two fake GPUs.
small_job=(--ntasks-per-node=2 --cpus-per-task=1 --time=5 --output="$work/slurm-%j.out")
gpu_job=("${small_job[@]}" --gpus-per-node=2)
cpu_job=("${small_job[@]}" --gpus-per-node=0)
# The smallest study: the tiny test model, one grid point, few repetitions.
small_study=(env TPB_MODEL="$src/tp_decoder/configs/tiny-llama.json" "TPB_TP=1,2" TPB_BATCH=1 TPB_CONTEXT=16
             TPB_RUN_ARGS="-n 5 -w 1 --sweep-iters 5")

stage() { echo "== [${SECONDS}s] $*"; }

check() {
  stage "check $1"
  /usr/bin/python3 "$src/tests/jobs/check_results.py" "$@"
}

job_metadata=(--attr "slurm_job_nodelist=$node" --attr "slurm_job_gpus=0,1" --nodes 1)

stage "sweep.sbatch, srun launcher"
job=$(TPB_TP=1,2 TPB_SWEEP_ARGS="-b 8 -e 64K -f 4 -n 5 -w 1" \
      sbatch --parsable --wait "${gpu_job[@]}" "$src/jobs/slurm/sweep.sbatch")
check "$work/out/$job/sweep.h5" --complete 1 --attr "slurm_job_id=$job" "${job_metadata[@]}" \
  --group /sweep/k1 --group /sweep/k2
[ -s "$work/out/$job/sweep.txt" ] || { echo "no sweep table in $work/out/$job"; exit 1; }

stage "study.sbatch, mpirun launcher"
job=$(TPB_LAUNCHER=mpirun "${small_study[@]}" sbatch --parsable --wait "${gpu_job[@]}" "$src/jobs/slurm/study.sbatch")
check "$work/out/$job/study.h5" --complete 1 --attr "slurm_job_id=$job" "${job_metadata[@]}" \
  --tp-within-nodes 1,2
[ -s "$work/out/$job/report.md" ] || { echo "no report.md in $work/out/$job"; exit 1; }

stage "scancel mid-run leaves a readable, incomplete file"
# TP-1 (one rank per group, no communication) finishes in seconds; TP-2
# would take minutes at this iteration count. Cancelled once TP-1 is written.
# Submitted as on a CPU-only partition: --gpus-per-node=0 overrides the header
# (the job still sees the node's GPUs: --exclusive gives it the whole node).
job=$(TPB_TP=1,2 TPB_SWEEP_ARGS="-b 8 -e 1M -f 4 -n 20000 -w 1" \
      sbatch --parsable "${cpu_job[@]}" "$src/jobs/slurm/sweep.sbatch")
log=$work/slurm-$job.out
deadline=$((SECONDS + 60))
until grep -q '^# fit all_reduce k=1' "$log" 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || { echo "job $job finished no TP-1 sweep within 60 s"; exit 1; }
  sleep 0.5
done
sleep 1  # the table is printed just before the group is written and flushed
scancel "$job"
deadline=$((SECONDS + 60))
while state=$(squeue -h -t all -j "$job" -o %T 2>/dev/null) && [[ $state =~ ^(PENDING|RUNNING|COMPLETING)$ ]]; do
  [ $SECONDS -lt $deadline ] || { echo "job $job still $state 60 s after scancel"; exit 1; }
  sleep 0.5
done
[ "$state" = CANCELLED ] || { echo "job $job ended as '$state', not CANCELLED: it ran to the end"; exit 1; }
check "$work/out/$job/sweep.h5" --complete 0 --attr "slurm_job_id=$job" --group /sweep/k1
stage "sweep.sbatch on a CPU-only node (no GPU GRES at all)"
"$cluster" down >/dev/null
TPB_FAKE_GPUS=0 "$cluster" up
# A new cluster numbers its jobs from 1 again: results go to a folder of their own.
job=$(TPB_OUT=$work/out-cpu-node TPB_TP=1,2 TPB_SWEEP_ARGS="-b 8 -e 1K -f 4 -n 3 -w 1" \
      sbatch --parsable --wait "${cpu_job[@]}" "$src/jobs/slurm/sweep.sbatch")
check "$work/out-cpu-node/$job/sweep.h5" --complete 1 --attr "slurm_job_id=$job" --attr "slurm_job_nodelist=$node" \
  --group /sweep/k2
echo "slurm test passed"
