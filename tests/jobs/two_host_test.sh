#!/usr/bin/env bash
# ctest (label multinode): two hosts on one machine. Each host is a network
# namespace with its own hostname, joined by a veth pair carrying addresses
# from 198.18.0.0/24 (the RFC 2544 benchmarking range; the namespaces have no
# other interface and no route, so nothing leaves them). One mpirun, started
# on the first host by the jobs/mpirun launchers, reaches the second through a
# remote-shell agent that enters its namespace instead of using ssh; Open MPI
# talks TCP between them. Then, on a two-node Slurm over the same hosts
# (jobs/slurm/local-cluster.sh with TPB_SLURM_HOSTS), study-multinode.sbatch
# (srun) and sweep.sbatch (mpirun). Checks: the rank map shows two nodes, TP
# groups do not straddle them, and every sweep and study completes; a one-shot
# sweep runs where its groups share a host and is refused where one spans both.
#
# usage: two_host_test.sh SOURCE_DIR MPI_BENCH WORK_DIR
# Exits 77 (ctest SKIP_RETURN_CODE) with the reason where namespaces are denied.
. "$(dirname "$0")/job_test_lib.sh"
[ "$(id -u)" -eq 0 ] || skip "creating network namespaces needs root"
for tool in ip unshare mpirun; do
  command -v "$tool" >/dev/null || skip "$tool not found (jobs/setup.sh installs iproute2 and Open MPI)"
done

namespaces=("tpb$$h0" "tpb$$h1")
addresses=(198.18.0.1 198.18.0.2)
hostnames=(tpb-host0 tpb-host1)
subnet=198.18.0.0/24
cluster=$src/jobs/slurm/local-cluster.sh
export TPB_LOCAL_SLURM_DIR=${TMPDIR:-/tmp}/tpbench-slurm-two-hosts TPB_SLURM_PORT=16847 TPB_FAKE_GPUS=2
export TPB_SLURM_HOSTS="${addresses[0]}=${namespaces[0]}=${hostnames[0]} ${addresses[1]}=${namespaces[1]}=${hostnames[1]}"
export SLURM_CONF=$TPB_LOCAL_SLURM_DIR/etc/slurm.conf

cleanup() {
  local status=$? namespace pid
  if [ $status -ne 0 ] && [ $status -ne 77 ]; then
    for log in "$work"/slurm-*.out "$TPB_LOCAL_SLURM_DIR"/log/*.log; do
      [ -f "$log" ] && { echo "---- $log (last 20 lines)"; tail -n 20 "$log"; }
    done
  fi
  # The Slurm daemons first: they run inside the namespaces.
  [ -d "$TPB_LOCAL_SLURM_DIR" ] && { "$cluster" down || status=1; }
  for namespace in "${namespaces[@]}"; do
    [ -e "/run/netns/$namespace" ] || continue
    # Whatever still runs inside (an orted after a failure) goes with it.
    for pid in $(ip netns pids "$namespace" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    ip netns delete "$namespace" || { echo "cleanup: could not delete namespace $namespace" >&2; status=1; }
  done
  exit $status
}
trap cleanup EXIT
trap 'exit 1' INT TERM
trap 'echo "FAILED: line $LINENO: $BASH_COMMAND"' ERR

# Namespaces an interrupted earlier run left behind (named after its pid, now gone).
for stale in $(ip netns list 2>/dev/null | grep -oE '^tpb[0-9]+h[01]\b' || true); do
  pid=${stale#tpb}
  pid=${pid%h?}
  kill -0 "$pid" 2>/dev/null || ip netns delete "$stale" 2>/dev/null || true
done

if ! error=$(ip netns add "${namespaces[0]}" 2>&1); then
  skip "network namespaces are not permitted here (ip netns add: $error)"
fi
ip netns add "${namespaces[1]}"
if ! error=$(unshare --uts true 2>&1); then
  skip "UTS namespaces are not permitted here (unshare --uts: $error)"
fi
if ! error=$(ip link add "${namespaces[0]}v" netns "${namespaces[0]}" type veth \
                peer name "${namespaces[1]}v" netns "${namespaces[1]}" 2>&1); then
  skip "veth pairs are not permitted here (ip link add: $error)"
fi
for i in 0 1; do
  ip -n "${namespaces[$i]}" addr add "${addresses[$i]}/24" dev "${namespaces[$i]}v"
  ip -n "${namespaces[$i]}" link set "${namespaces[$i]}v" up
  ip -n "${namespaces[$i]}" link set lo up
done

rm -rf "$work/out"
mkdir -p "$work"
printf '%s slots=2\n' "${addresses[@]}" >"$work/hosts"

# The launchers run as they would on a real cluster's first node; only the
# remote shell and the interface selection are specific to this test.
export TPB_BIN=$bin TPB_OUT=$work/out TPB_BACKEND=cpu TPB_RANKS_PER_NODE=2 TPB_CORES_PER_RANK=1 OMP_NUM_THREADS=1
export TPB_NETNS_HOSTS=$TPB_SLURM_HOSTS
export TPB_MPIRUN_ARGS="--mca plm_rsh_agent $src/tests/jobs/netns-agent.sh --mca btl tcp,self
  --mca btl_tcp_if_include $subnet --mca oob_tcp_if_include $subnet --mca mpi_yield_when_idle 1"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

on_first_host() {  # on_first_host COMMAND...: run inside host 0's namespace, under its hostname, for 2 min at most
  # shellcheck disable=SC2016  # $0 and $@ belong to the inner shell
  timeout 120 ip netns exec "${namespaces[0]}" unshare --uts /bin/sh -c 'hostname "$0" && exec "$@"' "${hostnames[0]}" "$@"
}

stage() { echo "== [${SECONDS}s] $*"; }

check() {
  stage "check $1"
  /usr/bin/python3 "$src/tests/jobs/check_results.py" "$@"
}

stage "sweep across ${hostnames[*]}"
TPB_RUN_ID=sweep TPB_TP=1,2,4 TPB_SWEEP_ARGS="-b 8 -e 64K -f 4 -n 5 -w 1" \
  on_first_host "$src/jobs/mpirun/sweep.sh" "$work/hosts"
check "$work/out/sweep/sweep.h5" --complete 1 --nodes 2 --tp-within-nodes 1,2 \
  --group /sweep/k1 --group /sweep/k2 --group /sweep/k4

stage "one-shot sweep across ${hostnames[*]}: TP-1,2 groups share a host and run; TP-4 spans both and is refused"
# shellcheck disable=SC2086  # TPB_MPIRUN_ARGS is a list of flags
on_first_host mpirun $TPB_MPIRUN_ARGS --hostfile "$work/hosts" -n 4 "$bin" sweep --collective oneshot --tp 1,2 \
  -b 8 -e 1K -f 4 -n 3 -w 1 -o "$work/out/oneshot.h5" >/dev/null
status=0
# shellcheck disable=SC2086
on_first_host mpirun $TPB_MPIRUN_ARGS --hostfile "$work/hosts" -n 4 "$bin" sweep --collective oneshot --tp 4 \
  -b 8 -e 8 -o "$work/out/oneshot-spanning.h5" >/dev/null 2>"$work/oneshot-spanning.err" || status=$?
errors=$(grep -c '^tpbench: error: --collective oneshot at TP-4: the group of 4 ranks spans 2 nodes' \
  "$work/oneshot-spanning.err" || true)
if [ "$status" -ne 2 ] || [ "$errors" -ne 1 ] || [ -e "$work/out/oneshot-spanning.h5" ]; then
  echo "FAILED: one-shot across two hosts: exit $status (expected 2), $errors matching error line(s), file left: \
$([ -e "$work/out/oneshot-spanning.h5" ] && echo yes || echo no)"
  cat "$work/oneshot-spanning.err"
  exit 1
fi

stage "one-shot step across ${hostnames[*]}: a TP-4 group spans both hosts and is refused before any file"
status=0
# shellcheck disable=SC2086
on_first_host mpirun $TPB_MPIRUN_ARGS --hostfile "$work/hosts" -n 4 "$bin" step --collective oneshot --tp 4 \
  --model "$src/tp_decoder/configs/tiny-llama.json" --batch 1 --context 16 -w 1 -n 2 \
  -o "$work/out/oneshot-step-spanning.h5" >/dev/null 2>"$work/oneshot-step-spanning.err" || status=$?
errors=$(grep -c '^tpbench: error: --collective oneshot at TP-4: the group of 4 ranks spans 2 nodes' \
  "$work/oneshot-step-spanning.err" || true)
if [ "$status" -ne 2 ] || [ "$errors" -ne 1 ] || [ -e "$work/out/oneshot-step-spanning.h5" ]; then
  echo "FAILED: one-shot step across two hosts: exit $status (expected 2), $errors matching error line(s), file \
left: $([ -e "$work/out/oneshot-step-spanning.h5" ] && echo yes || echo no)"
  cat "$work/oneshot-step-spanning.err"
  exit 1
fi

stage "study across ${hostnames[*]}"
TPB_RUN_ID=study TPB_TP=1,2,4 TPB_MODEL="$src/tp_decoder/configs/tiny-llama.json" TPB_BATCH=1 TPB_CONTEXT=16 \
  TPB_RUN_ARGS="-n 5 -w 1 --sweep-iters 5 --rounds 10" on_first_host "$src/jobs/mpirun/study.sh" "$work/hosts"
check "$work/out/study/study.h5" --complete 1 --nodes 2 --tp-within-nodes 1,2

stage "study-multinode.sbatch on a two-node Slurm over ${hostnames[*]}"
if ! command -v sbatch >/dev/null; then
  echo "two-host test passed without the Slurm part: sbatch not found (jobs/setup.sh installs slurm-wlm)"
  exit 0
fi
"$cluster" down >/dev/null  # what an interrupted earlier run left behind
"$cluster" up
# What every job gets (sbatch passes this environment on): the checkout under
# test, and Open MPI's transport choice.
export TPB_ROOT=$src OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=$subnet OMPI_MCA_oob_tcp_if_include=$subnet
export OMPI_MCA_mpi_yield_when_idle=1
two_node_job=(--nodes=2 --ntasks-per-node=2 --cpus-per-task=1 --gpus-per-node=2 --time=5 --output="$work/slurm-%j.out")
slurm_metadata=(--attr "slurm_job_nodelist=tpb-host[0-1]" --attr slurm_job_num_nodes=2)

# Slurm's srun starts the ranks (PMIx).
job=$(TPB_MODEL="$src/tp_decoder/configs/tiny-llama.json" TPB_TP=1,2,4 TPB_BATCH=1 TPB_CONTEXT=16 \
      TPB_RUN_ARGS="-n 5 -w 1 --sweep-iters 5 --rounds 10" \
      ip netns exec "${namespaces[0]}" sbatch --parsable --wait "${two_node_job[@]}" "$src/jobs/slurm/study-multinode.sbatch")
check "$work/out/$job/study.h5" --complete 1 --nodes 2 --tp-within-nodes 1,2 --attr "slurm_job_id=$job" \
  "${slurm_metadata[@]}"

stage "sweep.sbatch on two Slurm nodes, mpirun launcher"
# mpirun reads the allocation from Slurm and starts its daemons with srun.
job=$(TPB_LAUNCHER=mpirun TPB_TP=1,2,4 TPB_SWEEP_ARGS="-b 8 -e 1K -f 4 -n 3 -w 1" \
      ip netns exec "${namespaces[0]}" sbatch --parsable --wait "${two_node_job[@]}" "$src/jobs/slurm/sweep.sbatch")
check "$work/out/$job/sweep.h5" --complete 1 --nodes 2 --tp-within-nodes 1,2 --attr "slurm_job_id=$job" \
  "${slurm_metadata[@]}" --group /sweep/k4
echo "two-host test passed"
