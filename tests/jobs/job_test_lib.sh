# Sourced first by the job-script tests (usage: TEST.sh SOURCE_DIR MPI_BENCH
# WORK_DIR): strict mode, the three arguments as src, bin and work, skip, and
# the local Slurm cluster of the Slurm tests.
set -euo pipefail
src=$1
bin=$2
work=$3

# Exits 77 (ctest SKIP_RETURN_CODE) with the reason the test cannot run here.
skip() {
  echo "SKIPPED: $*"
  exit 77
}

# Root and sbatch, or a skip; then the test's own cluster of
# jobs/slurm/local-cluster.sh (TPB_LOCAL_SLURM_DIR, TPB_SLURM_PORT and
# TPB_FAKE_GPUS exported before), brought down however the test ends, with the
# last lines of the jobs' and the daemons' logs after a failure.
use_local_slurm() {
  [ "$(id -u)" -eq 0 ] || skip "starting munged, slurmctld and slurmd needs root"
  command -v sbatch >/dev/null || skip "sbatch not found (jobs/setup.sh installs slurm-wlm and munge)"
  cluster=$src/jobs/slurm/local-cluster.sh
  export SLURM_CONF=$TPB_LOCAL_SLURM_DIR/etc/slurm.conf
  trap slurm_cleanup EXIT
  trap 'exit 1' INT TERM
  trap 'echo "FAILED: line $LINENO: $BASH_COMMAND"' ERR
}

slurm_cleanup() {
  local status=$?
  if [ $status -ne 0 ] && [ $status -ne 77 ]; then
    for log in "$work"/*.out "$TPB_LOCAL_SLURM_DIR"/log/*.log; do
      [ -f "$log" ] && { echo "---- $log (last 20 lines)"; tail -n 20 "$log"; }
    done
  fi
  "$cluster" down || status=1
  exit $status
}
