#!/usr/bin/env bash
# A real Slurm on this machine, for testing the batch scripts: munged,
# slurmctld and slurmd started as root from a generated slurm.conf in one
# folder, with optional fake GPUs (character devices made by mknod) so
# --gpus-per-node is scheduled like on a GPU partition. One node (this host)
# by default; several when TPB_SLURM_HOSTS names network-namespace hosts.
#
#   jobs/slurm/local-cluster.sh up       start (does nothing when already up)
#   jobs/slurm/local-cluster.sh status   say what runs; exit 0 only when the node accepts jobs
#   jobs/slurm/local-cluster.sh down     stop everything and remove the folder (safe to repeat)
#
# Then point the Slurm commands at it:  export SLURM_CONF=$TPB_LOCAL_SLURM_DIR/etc/slurm.conf
#
# Environment (all optional):
#   TPB_LOCAL_SLURM_DIR   the cluster's folder (default ${TMPDIR:-/tmp}/tpbench-local-slurm)
#   TPB_FAKE_GPUS         fake GPUs on the node, 0 for a CPU-only node (default 2)
#   TPB_SLURM_PORT        slurmctld port; slurmd uses the next one (default 16817, away from a site's 6817)
#   TPB_SLURM_HOSTS       "ADDRESS=NAMESPACE=HOSTNAME ..." : one node per existing network namespace,
#                         each slurmd under its own hostname; slurmctld runs in the first, and so must
#                         every Slurm command:  ip netns exec NAMESPACE sbatch ...
set -euo pipefail

dir=${TPB_LOCAL_SLURM_DIR:-${TMPDIR:-/tmp}/tpbench-local-slurm}
fake_gpus=${TPB_FAKE_GPUS:-2}
ctld_port=${TPB_SLURM_PORT:-16817}
slurmd_port=$((ctld_port + 1))
conf=$dir/etc/slurm.conf
munge_socket=$dir/munge/munge.socket
plugin_dir=$(dirname "$(find /usr/lib -name auth_munge.so -path '*slurm*' -print -quit 2>/dev/null || true)")

# The nodes: parallel arrays of hostname, address and network namespace
# ("-": this host's own).
node_names=() node_addresses=() node_namespaces=()
if [ -n "${TPB_SLURM_HOSTS:-}" ]; then
  for entry in $TPB_SLURM_HOSTS; do
    IFS="=" read -r address namespace name <<<"$entry"
    node_addresses+=("$address") node_namespaces+=("$namespace") node_names+=("$name")
  done
else
  node_names=("$(hostname -s)") node_addresses=(127.0.0.1) node_namespaces=(-)
fi
node_list=$(IFS=,; echo "${node_names[*]}")

say() { echo "local-cluster: $*"; }
fail() { echo "local-cluster: $*" >&2; exit 1; }

# PIDs of this cluster's processes: those whose command line names its folder
# (the daemons: each gets its config or socket path from $dir) and those
# holding a file in it open (slurmstepd and its spool socket), found even when
# a pid file was lost to a failed start.
cluster_pids() {
  {
    grep -lsF -- "$dir/" /proc/[0-9]*/cmdline
    find /proc/[0-9]*/fd -maxdepth 1 -lname "$dir/*" 2>/dev/null
  } | cut -d/ -f3 | sort -u | grep -vx "$$" || true
}

on_node() {  # on_node I COMMAND...: run on node I (inside its namespace, under its hostname)
  if [ "${node_namespaces[$1]}" = - ]; then
    "${@:2}"
  else
    # nsenter, not `ip netns exec`: that one also remounts /sys, hiding the
    # cgroup file system slurmd looks for.
    # shellcheck disable=SC2016  # $0 and $@ belong to the inner shell
    nsenter --net="/run/netns/${node_namespaces[$1]}" unshare --uts /bin/sh -c 'hostname "$0" && exec "$@"' "${node_names[$1]}" "${@:2}"
  fi
}

slurm_client() {  # slurm_client COMMAND...: a Slurm command where it reaches slurmctld
  if [ "${node_namespaces[0]}" = - ]; then
    SLURM_CONF=$conf timeout 10 "$@"
  else
    SLURM_CONF=$conf timeout 10 ip netns exec "${node_namespaces[0]}" "$@"
  fi
}

daemon_pid() {  # daemon_pid NAME -> pid when that daemon of this cluster is alive
  local pidfile=$dir/run/$1.pid pid
  [ -s "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  kill -0 "$pid" 2>/dev/null || return 1
  { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF -- "$dir/" || return 1
  echo "$pid"
}

node_state() {  # node_state NAME: its state as slurmctld sees it (idle, mixed, down*, ...), empty when unreachable
  slurm_client sinfo -h -N -n "$1" -o %T 2>/dev/null | head -n 1 || true
}

nodes_accept_jobs() {
  local name
  for name in "${node_names[@]}"; do
    case $(node_state "$name") in
      idle|mixed|allocated|completing) ;;
      *) return 1 ;;
    esac
  done
}

show_logs() {
  local log
  for log in "$dir"/log/*.log; do
    [ -f "$log" ] || continue
    echo "---- $log (last 15 lines)" >&2
    tail -n 15 "$log" >&2
  done
}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: poll until COMMAND succeeds
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    if [ $SECONDS -ge $deadline ]; then
      show_logs
      fail "$what did not happen within ${seconds}s (logs above; run '$0 down' to clean up)"
    fi
    sleep 0.5
  done
}

mpi_default() {
  # PMIx lets `srun` start Open MPI ranks directly; Slurm only offers it when
  # its mpi_pmix plugin is installed (Debian: slurm-wlm-basic-plugins).
  if slurm_client srun --mpi=list 2>&1 | grep -qw pmix; then echo pmix; else echo none; fi
}

write_config() {
  mkdir -p "$dir"/{etc,munge,run,log,state,dev}
  local name
  for name in "${node_names[@]}"; do mkdir -p "$dir/spool/$name" "$dir/tmp/$name"; done
  # munged wants its socket's folder searchable by all; the key stays 0400.
  chmod 711 "$dir/munge"
  # Node lines describe this machine's real topology (slurmd -C), so slurmd
  # never drains a node for a mismatch.
  local hardware
  hardware=$(slurmd -C | head -n 1 | sed -e "s/^NodeName=[^ ]* //" -e 's/ RealMemory=[0-9]*//')
  local gres_line="" gres_types=""
  if [ "$fake_gpus" -gt 0 ]; then
    local i
    for ((i = 0; i < fake_gpus; i++)); do
      # Same device numbers as /dev/null: Slurm only needs a character
      # device to hand out; nothing ever opens it.
      [ -e "$dir/dev/fakegpu$i" ] || mknod -m 666 "$dir/dev/fakegpu$i" c 1 3
    done
    gres_types="GresTypes=gpu"
    gres_line="Gres=gpu:$fake_gpus"
    echo "NodeName=$node_list Name=gpu File=$dir/dev/fakegpu[0-$((fake_gpus - 1))]" >"$dir/etc/gres.conf"
  else
    : >"$dir/etc/gres.conf"
  fi
  cat >"$conf" <<EOF
# Generated by jobs/slurm/local-cluster.sh: a test cluster on one machine, root-run.
ClusterName=tpbench-local
SlurmctldHost=${node_names[0]}(${node_addresses[0]})
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
PluginDir=$plugin_dir
StateSaveLocation=$dir/state
# %n: the node name, so several slurmd on one machine keep apart.
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/tmp/%n
# Plain process tracking and no task binding: no cgroups needed, so it runs in containers.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
# sbatch --wait polls every 2 s only while its interval is under MinJobAge/2
# (then every 8, then 32 s); 4 s keeps it at 2 s, and a finished job's record
# for a few seconds.
MinJobAge=4
$gres_types
EOF
  local i
  for i in "${!node_names[@]}"; do
    echo "NodeName=${node_names[$i]} NodeAddr=${node_addresses[$i]} $hardware $gres_line State=UNKNOWN" >>"$conf"
  done
  echo "PartitionName=local Nodes=$node_list Default=YES MaxTime=INFINITE State=UP" >>"$conf"
  local mpi
  mpi=$(mpi_default)
  sed -i "s/^MpiDefault=none$/MpiDefault=$mpi/" "$conf"
}

start_munge() {
  daemon_pid munged >/dev/null && return 0
  # A private key and socket: the host's own munge (if any) is left alone.
  [ -s "$dir/munge/munge.key" ] || { dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none; chmod 400 "$dir/munge/munge.key"; }
  munged --force --socket="$munge_socket" --key-file="$dir/munge/munge.key" \
         --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
    || { show_logs; fail "munged did not start"; }
  wait_for 10 "munged answering" test -S "$munge_socket"
}

controller_up() { slurm_client scontrol ping 2>/dev/null | grep -q UP; }

start_slurm() {
  if ! daemon_pid slurmctld >/dev/null; then
    # -i: ignore state left by an earlier cluster in this folder.
    on_node 0 slurmctld -i -f "$conf" || { show_logs; fail "slurmctld did not start"; }
  fi
  wait_for 30 "slurmctld answering" controller_up
  local i
  for i in "${!node_names[@]}"; do
    if ! daemon_pid "slurmd-${node_names[$i]}" >/dev/null; then
      on_node "$i" slurmd -f "$conf" -N "${node_names[$i]}" || { show_logs; fail "slurmd on ${node_names[$i]} did not start"; }
    fi
  done
  wait_for 30 "nodes $node_list accepting jobs" nodes_accept_jobs
  # slurmd may register before it writes its pid file, which status and down rely on.
  wait_for 10 "every daemon writing its pid file" all_daemons_up
}

all_daemons_up() {
  local name
  daemon_pid munged >/dev/null && daemon_pid slurmctld >/dev/null || return 1
  for name in "${node_names[@]}"; do daemon_pid "slurmd-$name" >/dev/null || return 1; done
}

cmd_up() {
  [ "$(id -u)" -eq 0 ] || fail "must run as root (it starts munged, slurmctld and slurmd)"
  local tool
  for tool in munged slurmctld slurmd sinfo scontrol srun; do
    command -v "$tool" >/dev/null || fail "$tool not found; run jobs/setup.sh (installs slurm-wlm and munge)"
  done
  if all_daemons_up && nodes_accept_jobs; then
    say "already up ($dir)"
    print_usage
    return 0
  fi
  [ -f "$conf" ] || write_config
  start_munge
  start_slurm
  say "up: nodes $node_list, $(grep -o 'CPUs=[0-9]*' "$conf"), fake GPUs $fake_gpus, MpiDefault=$(sed -n 's/^MpiDefault=//p' "$conf")"
  print_usage
}

print_usage() {
  echo "export SLURM_CONF=$conf"
  [ "${node_namespaces[0]}" = - ] || echo "# Slurm commands reach slurmctld from its namespace: ip netns exec ${node_namespaces[0]} sbatch ..."
}

cmd_status() {
  if [ ! -d "$dir" ]; then
    say "down (no folder $dir)"
    return 3
  fi
  local name pid state healthy=0
  for name in munged slurmctld "${node_names[@]/#/slurmd-}"; do
    if pid=$(daemon_pid "$name"); then say "$name running (pid $pid)"; else say "$name not running"; healthy=1; fi
  done
  for name in "${node_names[@]}"; do
    state=$(node_state "$name")
    say "node $name: ${state:-unreachable}"
  done
  nodes_accept_jobs || healthy=1
  if [ $healthy -eq 0 ]; then
    say "up ($dir)"
    print_usage
    return 0
  fi
  say "not usable; '$0 down' cleans up"
  return 3
}

cmd_down() {
  if [ ! -d "$dir" ]; then
    say "already down"
    return 0
  fi
  # Jobs first, so no job step outlives its slurmd.
  if daemon_pid slurmctld >/dev/null; then
    slurm_client scancel --full --partition=local 2>/dev/null || true
    local deadline_jobs=$((SECONDS + 15))
    while [ -n "$(slurm_client squeue -h -o %i 2>/dev/null)" ] && [ $SECONDS -lt $deadline_jobs ]; do
      sleep 0.5
    done
  fi
  local pid pids deadline
  for pid in $(cluster_pids); do kill -TERM "$pid" 2>/dev/null || true; done
  deadline=$((SECONDS + 10))
  while [ -n "$(cluster_pids)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
  for pid in $(cluster_pids); do kill -KILL "$pid" 2>/dev/null || true; done
  sleep 0.5
  pids=$(cluster_pids)
  [ -z "$pids" ] || fail "processes still running after SIGKILL: $pids"
  rm -rf "$dir"
  say "down"
}

case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
