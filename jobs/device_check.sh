#!/usr/bin/env bash
# Device check on one NVIDIA GPU, run from the offline bundle: nothing is
# installed and nothing is built on the node.
#
# The exact call (the command's limit: 600 s; what travels: tpbench-bundle.tar.gz
# from jobs/bundle.sh, 48 MiB at most, the only file):
#   tar -xzf tpbench-bundle.tar.gz && tpbench-bundle/device_check.sh "$OUT"
# The steps' timeouts sum to 430 s (`device_check.sh --dry-run` lists each
# command with its budget), within the 8 minutes the check may take.
#
# The check spends its one try on figures first: every step runs whatever an
# earlier one did, unless it needs what a failed step would have made (then it
# is skipped, naming that step). A failed test or an overrun budget stops
# nothing. $OUT receives, whatever happened:
#   summary.txt          one line per step, starting with its name: passed,
#                        FAILED with its log's name and last lines, or skipped
#                        with why; then the timing tables of what was measured.
#                        Rewritten after every step, so a killed check leaves one.
#   device_check.tar.gz  every log and HDF5 file.
# Exit status: 0 when no step failed, 1 when one did (summary.txt names it), 2
# for a usage error. A step skipped for a reason that is not a failure (no
# compute-sanitizer on the node) does not fail the check.
#
# The node needs: an NVIDIA driver, glibc >= 2.36, cudart and cuBLAS (a CUDA
# toolkit, CUDA_HOME, or the CUDA wheels), NCCL (NCCL_HOME, the wheel or the
# toolkit), python3 with h5py and numpy (the timing tables), and
# compute-sanitizer (optional).
#
# Order: the node (bundle launcher, nvidia-smi, the CUDA runtime's own view,
# python3); the timings: Llama-3.1-8B TP-1 eager then --graph (b 1,8,32 x
# c 512,4096; TP-1 opens no communicator, so no NCCL), the Llama-3.1-70B shard
# replay for k = 2,4,8 eager then --graph, device-to-device copy bandwidth, the
# timing tables; then the tests: the CUDA backend's GPU tests, NCCL's own test
# with a 1-rank sweep, compute-sanitizer memcheck on the project's kernels.
#
# Usage: device_check.sh [--dry-run] OUT_DIR
#   (from the source tree, jobs/device_check.sh runs the bundle in $TPB_BUNDLE,
#   default ./tpbench-bundle)
set -uo pipefail  # not -e: a step's failure is recorded, never the end of the check

dry_run=0
if [ "${1:-}" = --dry-run ]; then
  dry_run=1
  shift
fi
if [ $# -ne 1 ]; then
  echo "usage: device_check.sh [--dry-run] OUT_DIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$here/bin/mpi_bench" ]; then bundle=$here; else bundle=${TPB_BUNDLE:-$PWD/tpbench-bundle}; fi
out=$1
logs=$out/device_check
bin=$bundle/bin
configs=$bundle/share/tpbench/configs
# --dry-run from the source tree, before any bundle exists: the same configs.
if [ ! -d "$configs" ] && [ -d "$here/../tp_decoder/configs" ]; then configs=$(cd "$here/../tp_decoder/configs" && pwd); fi
started=$(date +%s)
max_budget_s=480

progress() { echo "[device_check +$(($(date +%s) - started))s] $*"; }

# --- the steps' outcomes and summary.txt -----------------------------------------------------------------
names=()             # steps in the order they ran
declare -A outcome=() # name -> passed | failed | skipped
declare -A line=()    # name -> its summary line
failures=0
budget_total=0

# The summary: a header, one line per step, then the timing tables when they were made.
write_summary() {
  [ "$dry_run" = 0 ] || return 0
  {
    echo "# tpbench device check: ${#names[@]} steps, $failures failed; $(($(date +%s) - started)) s; bundle $bundle"
    local name
    for name in "${names[@]}"; do echo "${line[$name]}"; done
    if [ "${outcome[timing_tables]:-}" = passed ]; then
      echo
      cat "$logs/timing_tables.log"
    fi
  } >"$out/summary.txt.part" && mv "$out/summary.txt.part" "$out/summary.txt"
}

# record NAME passed|skipped|failed LINE: a step's outcome and its summary line.
# A check on a step's log after it ran may record it again: it keeps its place.
record() {
  [[ " ${names[*]} " == *" $1 "* ]] || names+=("$1")
  outcome[$1]=$2
  line[$1]=$3
  write_summary
}
passed() {  # NAME DETAIL
  record "$1" passed "$1: passed${2:+ ($2)}"
}
skipped() {  # NAME WHY
  progress "$1 skipped: $2"
  record "$1" skipped "$1: skipped: $2"
}
# NAME WHY: the log's name and its last three non-empty lines, joined.
failed() {
  local name=$1 why=$2 log=$logs/$1.log tail_text=""
  if [ -s "$log" ]; then
    tail_text=$(grep -v '^[[:space:]]*$' "$log" | tail -n 3 | cut -c1-200 | paste -sd '|' - | sed 's/|/ | /g')
  fi
  failures=$((failures + 1))
  progress "$name FAILED: $why"
  record "$name" failed "$name: FAILED ($why; log device_check/$name.log)${tail_text:+: $tail_text}"
}

# step NAME BUDGET_S NEEDS CMD...: runs CMD within its budget, output to
# $logs/NAME.log. NEEDS: a comma list of steps that must have passed first, or
# -. --dry-run prints the budget and the command instead.
step() {
  local name=$1 budget=$2 needs=$3
  shift 3
  budget_total=$((budget_total + budget))
  if [ "$dry_run" = 1 ]; then
    printf '%4ss  %s\n' "$budget" "$*"
    return 0
  fi
  local need
  for need in ${needs//,/ }; do
    if [ "$need" != - ] && [ "${outcome[$need]:-}" != passed ]; then
      skipped "$name" "needs $need, which ${outcome[$need]:-did not run}"
      return 0
    fi
  done
  progress "$name (budget ${budget}s)"
  local t0 rc=0
  t0=$(date +%s)
  timeout --kill-after=5 "$budget" "$@" >"$logs/$name.log" 2>&1 || rc=$?
  local took=$(($(date +%s) - t0))
  if [ "$rc" -eq 0 ]; then
    passed "$name" "${took} s"
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    failed "$name" "over its ${budget} s budget, exit $rc"
  else
    failed "$name" "exit $rc after ${took} s"
  fi
}

# The archive and the final summary, also when the check is stopped from outside.
finish() {
  trap - EXIT
  if [ "$dry_run" = 0 ] && [ -d "$logs" ]; then
    write_summary
    tar -czf "$out/device_check.tar.gz" -C "$out" device_check && rm -rf "$logs"
    cat "$out/summary.txt"
    progress "done: $out/summary.txt and $out/device_check.tar.gz"
  fi
  [ "$failures" -eq 0 ] && exit 0
  exit 1
}

# --- the node ------------------------------------------------------------------------------------------------
gpu_mib=""
python=""
if [ "$dry_run" = 0 ]; then
  mkdir -p "$logs" || exit 2
  rm -f "$out/summary.txt" "$out/device_check.tar.gz"
  trap finish EXIT
  # Stopped from outside (the lender's limit): the steps not run yet have no line, and the check failed.
  trap 'failed stopped "stopped by a signal before every step ran"; exit 1' TERM INT HUP
  export PATH=$PATH:/usr/local/cuda/bin
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
else
  echo "# device_check.sh --dry-run: budget (s) and command, in order"
fi

# The launcher's own check (glibc, cudart, cuBLAS, NCCL), in one line if something is missing.
if [ "$dry_run" = 0 ] && [ ! -x "$bin/tpbench-run" ]; then
  budget_total=$((budget_total + 10))
  failed bundle "no bundle at $bundle (unpack tpbench-bundle.tar.gz, or set TPB_BUNDLE)"
else
  step bundle 10 - "$bin/tpbench-run" true
fi
step nvidia_smi 10 - nvidia-smi -L
if [ "$dry_run" = 0 ] && [ "${outcome[nvidia_smi]}" = passed ]; then
  if grep -q '^GPU' "$logs/nvidia_smi.log"; then
    gpu_name=$(timeout 10 nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null)
    gpu_mib=$(timeout 10 nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0 2>/dev/null)
    passed nvidia_smi "GPU 0: ${gpu_name:-?}, ${gpu_mib:-?} MiB; $(grep -c '^GPU' "$logs/nvidia_smi.log") visible, this check uses one"
  else
    failed nvidia_smi "nvidia-smi -L lists no GPU"
  fi
fi
# The CUDA runtime's own view: versions, the device, or the one line saying why it sees none.
step cuda_info 15 bundle "$bin/mpi_bench" info --gpu
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import h5py, numpy' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ "$dry_run" = 1 ]; then
  python=python3
  gpu_mib=143771  # an H200's, for the printed --layers only
elif [ -n "$python" ]; then
  passed python_h5py "$python"
else
  failed python_h5py "no python3 with h5py and numpy (the timing tables read the HDF5 files)"
fi

# --- the timings: Llama-3.1-8B TP-1, eager (with --check) and --graph ----------------------------------------
# shellcheck disable=SC2054  # the commas belong to the flag values
grid=(--tp 1 --batch 1,8,32 --context 512,4096 --backend cuda -w 5 -n 30)
step step_8b_eager 60 bundle "$bin/mpi_bench" step --model "$configs/llama-3.1-8b.json" "${grid[@]}" --check \
  -o "$logs/step_8b_eager.h5" --overwrite
step step_8b_graph 60 bundle "$bin/mpi_bench" step --model "$configs/llama-3.1-8b.json" "${grid[@]}" --graph \
  -o "$logs/step_8b_graph.h5" --overwrite

# --- Llama-3.1-70B shard replay, k = 2, 4, 8, eager then --graph ---------------------------------------------
# Layers that fit at k = 2 (the largest shard) with the largest point's KV cache,
# in 85 % of the GPU's memory after the replicated embedding and the LM head shard.
# Without python3 or the GPU's size: 80 GiB (an H100's) is assumed.
layers_py=$(cat <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
gpu_bytes = int(sys.argv[2]) * 2**20
k, batch, positions, bf16 = 2, 32, 4096 + 1, 2
hidden, inter, vocab = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
heads, kv = c["num_attention_heads"], c["num_key_value_heads"]
hd = c.get("head_dim", hidden // heads)
per_layer = (hidden * (heads + 2 * kv) * hd + heads * hd * hidden + 3 * hidden * inter) // k * bf16
per_layer += 2 * batch * max(kv // k, 1) * positions * hd * bf16  # K and V cache
fixed = vocab * hidden * bf16 + vocab // k * hidden * bf16 + 2 * 2**30  # embedding, LM head shard, slack
print(max(1, min(c["num_hidden_layers"], int((0.85 * gpu_bytes - fixed) // per_layer))))
EOF
)
layers=$("${python:-python3}" -c "$layers_py" "$configs/llama-3.1-70b.json" "${gpu_mib:-81920}" 2>/dev/null) || layers=""
[[ $layers =~ ^[0-9]+$ ]] || layers=28  # what the formula gives for 80 GiB
# shellcheck disable=SC2054  # the commas belong to the flag values
replay=(--model "$configs/llama-3.1-70b.json" --layers "$layers" --tp 2,4,8 --batch 1,8,32 --context 512,4096
  --backend cuda -w 3 -n 10)
step replay_70b 55 bundle "$bin/mpi_bench" replay "${replay[@]}" -o "$logs/replay_70b.h5" --overwrite
# The same shards as one CUDA graph each: launch gaps gone, what is left is compute.
step replay_70b_graph 60 bundle "$bin/mpi_bench" replay "${replay[@]}" --graph -o "$logs/replay_70b_graph.h5" --overwrite

# --- device-to-device copy bandwidth -------------------------------------------------------------------------
step d2d 15 bundle "$bin/mpi_bench" d2d -o "$logs/d2d.h5" --overwrite

# --- the timing tables: what was measured, and "not measured" for what was not --------------------------------
tables_py=$(cat <<'EOF'
import os, sys
import h5py
import numpy as np

logs, layers = sys.argv[1:3]

def open_or_none(name):
    path = f"{logs}/{name}.h5"
    return h5py.File(path, "r") if os.path.exists(path) else None

def point(f, group, graph=None):
    if f is None or group not in f:
        return None, None
    g = f[group]
    if graph is not None and int(g.attrs["graph"]) != graph:
        sys.exit(f"{group}: recorded graph={int(g.attrs['graph'])}, expected {graph}")
    return float(np.median(g["t_step_us"][()])), int(g.attrs["weight_bytes_per_step"])

def us(value):
    return f"{value:.1f}" if value is not None else "-"

files = {name: open_or_none(name) for name in ("step_8b_eager", "step_8b_graph", "replay_70b", "replay_70b_graph", "d2d")}
missing = [name for name, f in files.items() if f is None]
d2d_GBps = float(np.median(files["d2d"]["/d2d/copy_GBps"][()])) if files["d2d"] else None
print(f"device-to-device copy: {d2d_GBps:.1f} GB/s (median, bytes read + written, GB = 1e9 B)" if d2d_GBps
      else "device-to-device copy: not measured")
if missing:
    print(f"not measured (their step did not pass): {', '.join(missing)}")
print()
print("Llama-3.1-8B TP-1 bf16 (no communicator): median t_step_us; weight_GBps = weight bytes per step / t_step")
print(f"{'batch':>5} {'context':>7} {'eager_us':>10} {'graph_us':>10} {'graph/eager':>11} {'weight_GBps':>11} {'/d2d':>6}")
for b in (1, 8, 32):
    for c in (512, 4096):
        eager, weight_bytes = point(files["step_8b_eager"], f"/step/k1/b{b}_c{c}")
        graph, graph_bytes = point(files["step_8b_graph"], f"/step_graph/k1/b{b}_c{c}")
        best, best_bytes = (graph, graph_bytes) if graph else (eager, weight_bytes)
        gbps = best_bytes / best / 1e3 if best else None
        print(f"{b:>5} {c:>7} {us(eager):>10} {us(graph):>10} "
              f"{(f'{graph / eager:.3f}' if graph and eager else '-'):>11} {(f'{gbps:.1f}' if gbps else '-'):>11} "
              f"{(f'{gbps / d2d_GBps:.3f}' if gbps and d2d_GBps else '-'):>6}")
print("target: batch 1 graph weight_GBps >= 0.85 x d2d copy bandwidth (KV reads not counted as weight bytes)")
print()
print(f"Llama-3.1-70B shard replay (one GPU, no collectives), {layers} layers: median t_step_us, eager and --graph")
print("(graph/eager well below 1: the eager step times launch gaps, not compute)")
print(f"{'k':>3} {'batch':>5} {'context':>7} {'eager_us':>10} {'graph_us':>10} {'graph/eager':>11} {'weight_GBps':>11}")
for k in (2, 4, 8):
    for b in (1, 8, 32):
        for c in (512, 4096):
            eager, weight_bytes = point(files["replay_70b"], f"/replay/k{k}/b{b}_c{c}", graph=0)
            graph, graph_bytes = point(files["replay_70b_graph"], f"/replay/k{k}/b{b}_c{c}", graph=1)
            best, best_bytes = (graph, graph_bytes) if graph else (eager, weight_bytes)
            print(f"{k:>3} {b:>5} {c:>7} {us(eager):>10} {us(graph):>10} "
                  f"{(f'{graph / eager:.3f}' if graph and eager else '-'):>11} "
                  f"{(f'{best_bytes / best / 1e3:.1f}' if best else '-'):>11}")
EOF
)
if [ "$dry_run" = 1 ]; then
  step timing_tables 10 python_h5py "$python" -c "<the timing tables from the HDF5 files>" "$logs" "$layers"
else
  step timing_tables 10 python_h5py "$python" -c "$tables_py" "$logs" "$layers"
fi

# --- the tests, after the timings: a failure here costs no figure -------------------------------------------
step gpu_tests_cuda_backend 60 bundle "$bin/tpbench-run" "$bundle/libexec/tpbench/test_tp_decoder_cuda_gpu" \
  --gtest_brief=1
if [ "$dry_run" = 0 ] && [ "${outcome[gpu_tests_cuda_backend]}" = passed ]; then
  log=$logs/gpu_tests_cuda_backend.log
  if grep -q '\[  SKIPPED \]' "$log"; then
    # The CUDA backend's tests may not skip where a GPU is visible; their skip message names why.
    failed gpu_tests_cuda_backend "tests skipped although a GPU is visible: $(grep -m1 -i 'skipped' "$log" | cut -c1-200)"
  else
    record gpu_tests_cuda_backend passed "${line[gpu_tests_cuda_backend]%)}; $(grep -m1 -E '^\[  PASSED  \]' "$log" | cut -c14-))"
  fi
fi
# NCCL's own test: a 1-rank communicator and sweep through the bundled mpirun.
step gpu_tests_nccl_sweep_1rank 25 bundle "$bin/mpirun" -np 1 "$bin/tpbench-run" \
  "$bundle/libexec/tpbench/test_collectives_gpu" --gtest_brief=1

# --- compute-sanitizer memcheck, last: a sanitizer missing or unable to attach is a skip, not a failure ---------
# replay --tp 1 runs the project's own kernels with no communicator (NCCL's
# kernels are not ours to check); --report-api-errors no: expected API errors
# (the lazy-loading probes of the CUDA libraries) are not findings.
sanitized=("$bin/tpbench-run" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 86
  --target-processes application-only
  "$bundle/libexec/tpbench/mpi_bench" replay --model "$configs/tiny-llama.json" --tp 1 --batch 3 --context 200
  --backend cuda -w 1 -n 2 -o "$logs/sanitizer_replay.h5" --overwrite)
if [ "$dry_run" = 0 ] && ! command -v compute-sanitizer >/dev/null; then
  budget_total=$((budget_total + 50))
  skipped sanitizer_memcheck "compute-sanitizer not found on this node"
else
  step sanitizer_memcheck 50 bundle "${sanitized[@]}"
fi
if [ "$dry_run" = 0 ]; then
  log=$logs/sanitizer_memcheck.log
  case ${outcome[sanitizer_memcheck]} in
    passed)
      if grep -q 'ERROR SUMMARY: 0 errors' "$log"; then
        passed sanitizer_memcheck "tiny-llama replay --tp 1 b=3 c=200: 0 errors"
      else
        failed sanitizer_memcheck "no clean ERROR SUMMARY"
      fi
      ;;
    failed)
      if grep -Eqi 'Device not supported|unable to (attach|initialize)|not supported on this (device|platform)|Internal Sanitizer Error|CUPTI' "$log" &&
        ! grep -q 'ERROR SUMMARY: [1-9]' "$log"; then
        failures=$((failures - 1))
        skipped sanitizer_memcheck "compute-sanitizer could not attach to the device ($(grep -Ei -m1 'error|unable|fail' "$log" | cut -c1-160))"
      fi
      ;;
  esac
fi

if [ "$dry_run" = 1 ]; then
  printf '%4ss  %s\n' 0 "tar -czf $out/device_check.tar.gz -C $out device_check"
  echo "# total of the budgets: ${budget_total} s"
  [ "$budget_total" -le "$max_budget_s" ] ||
    { echo "device_check.sh: the budgets sum to ${budget_total} s, over ${max_budget_s} s" >&2; exit 1; }
  exit 0
fi
finish
