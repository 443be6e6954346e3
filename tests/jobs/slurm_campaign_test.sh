#!/usr/bin/env bash
# ctest (label slurm): jobs/slurm/campaign.sbatch on the one-node Slurm of
# jobs/slurm/local-cluster.sh. Seals a campaign of L = 3 (tiny-llama, TP 1
# and 2, 10 rounds), submits the 3-task array, cancels task 2 before it runs,
# and runs the pooled verdict as a job depending on the array (afterany). The
# verdict must count launches 1 and 3, name launch 2 (task 2) as not counted,
# say INCOMPLETE and write report.md and campaign.h5.
#
# usage: slurm_campaign_test.sh SOURCE_DIR MPI_BENCH WORK_DIR
# Exits 77 (ctest SKIP_RETURN_CODE) with the reason when it cannot run here.
. "$(dirname "$0")/job_test_lib.sh"
export TPB_LOCAL_SLURM_DIR=${TMPDIR:-/tmp}/tpbench-slurm-campaign-test TPB_SLURM_PORT=16847 TPB_FAKE_GPUS=0
use_local_slurm

"$cluster" down >/dev/null
"$cluster" up
rm -rf "$work"
mkdir -p "$work"
export TPB_ROOT=$src TPB_BIN=$bin TPB_OUT=$work/out TPB_BACKEND=cpu OMP_NUM_THREADS=1 TPB_LAUNCHER=mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TPB_CAMPAIGN=$work/campaign TPB_MODEL=$src/tp_decoder/configs/tiny-llama.json TPB_TP=1,2 TPB_BATCH=1 \
       TPB_CONTEXT=32 TPB_RUN_ARGS="-w 0 -n 1 --sweep-iters 3 --calibration-rounds 3 --rounds 10"
job=(--ntasks-per-node=2 --cpus-per-task=1 --gpus-per-node=0 --time=5)
stage() { echo "== [${SECONDS}s] $*"; }

stage "init: L = 3"
sbatch --wait "${job[@]}" --output="$work/init-%j.out" --export=ALL,TPB_CAMPAIGN_STAGE=init,TPB_LAUNCHES=3 \
  "$src/jobs/slurm/campaign.sbatch" >/dev/null
[ -s "$TPB_CAMPAIGN/campaign.json" ] || { echo "init sealed no campaign.json"; exit 1; }

stage "the 3-task array, task 2 cancelled"
# One task at a time (%1): task 2 is still pending when it is cancelled.
array=$(sbatch --parsable "${job[@]}" --array=1-3%1 --output="$work/launch-%A_%a.out" "$src/jobs/slurm/campaign.sbatch")
scancel "${array}_2"

stage "the pooled verdict, after the array (afterany)"
sbatch --wait "${job[@]}" --dependency="afterany:$array" --output="$work/verdict-%j.out" \
  --export=ALL,TPB_CAMPAIGN_STAGE=verdict,TPB_CAMPAIGN_ARRAY="$array" "$src/jobs/slurm/campaign.sbatch" >/dev/null
verdict_log=$(ls "$work"/verdict-*.out)
cat "$verdict_log"
grep -q "launch 2: not run" "$verdict_log" || { echo "the verdict does not name launch 2 (task 2)"; exit 1; }
grep -q "INCOMPLETE" "$verdict_log" || { echo "the verdict does not say INCOMPLETE"; exit 1; }
grep -q "pooled over launches 1, 3 of 3" "$verdict_log" || { echo "the verdict did not pool launches 1 and 3"; exit 1; }
for f in report.md campaign.h5; do [ -s "$TPB_CAMPAIGN/$f" ] || { echo "no $f in $TPB_CAMPAIGN"; exit 1; }; done
[ ! -e "$TPB_CAMPAIGN/launch-002" ] || { echo "the cancelled task left a launch directory"; exit 1; }
echo "slurm campaign test passed in ${SECONDS}s"
