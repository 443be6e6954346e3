#!/usr/bin/env bash
# Device check on one NVIDIA GPU, run from the offline bundle: nothing is
# installed and nothing is built on the node.
#
# The exact call (the command's limit: 420 s; what travels: tpbench-bundle.tar.gz
# from jobs/bundle.sh, 48 MiB at most, the only file):
#   tar -xzf tpbench-bundle.tar.gz && tpbench-bundle/device_check.sh "$OUT"
# The steps' timeouts sum to 335 s (`device_check.sh --dry-run` lists each
# command with its budget), leaving room for a rerun within 15 minutes of GPU
# time. $OUT receives two files: device_check.tar.gz (every log and HDF5 file)
# and summary.txt.
#
# The node needs: an NVIDIA driver, glibc >= 2.36, the CUDA toolkit (cudart,
# cuBLAS; /usr/local/cuda or CUDA_HOME), NCCL (NCCL_HOME or the Python wheel),
# python3 with h5py and numpy (the summary), and compute-sanitizer (optional:
# where it is missing or cannot attach to the device, that is recorded, not fatal).
#
# Order: the GPU tests, Llama-3.1-8B TP-1 eager then --graph (b 1,8,32 x c 512,4096),
# the Llama-3.1-70B shard replay for k = 2,4,8, device-to-device copy bandwidth,
# then compute-sanitizer memcheck on the project's kernels (replay --tp 1: no
# communicator). A failing step other than the sanitizer's attach stops the
# script with one line naming its log.
#
# Usage: device_check.sh [--dry-run] OUT_DIR
#   (from the source tree, jobs/device_check.sh runs the bundle in $TPB_BUNDLE,
#   default ./tpbench-bundle)
set -euo pipefail

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

progress() { echo "[device_check +$(($(date +%s) - started))s] $*"; }
# Stops the check. What ran so far still comes back as the two files: the
# failure line in summary.txt, the logs in device_check.tar.gz.
fail() {
  echo "[device_check] FAILED: $*" >&2
  if [ "$dry_run" = 0 ] && [ -d "$logs" ]; then
    echo "FAILED: $*" >>"$out/summary.txt"
    tar -czf "$out/device_check.tar.gz" -C "$out" device_check && rm -rf "$logs"
  fi
  exit 1
}

# run NAME BUDGET_S CMD...: runs CMD with its time budget, output to $logs/NAME.log;
# on failure stops the script naming that log. --dry-run prints it instead.
budget_total=0
run() {
  local name=$1 budget=$2
  shift 2
  budget_total=$((budget_total + budget))
  if [ "$dry_run" = 1 ]; then
    printf '%4ss  %s\n' "$budget" "$*"
    return 0
  fi
  progress "$name (budget ${budget}s)"
  timeout --kill-after=5 "$budget" "$@" >"$logs/$name.log" 2>&1 ||
    fail "$name (exit $?; see device_check/$name.log in $out/device_check.tar.gz)"
}

if [ "$dry_run" = 0 ]; then
  mkdir -p "$logs"
  rm -f "$out/summary.txt" "$out/device_check.tar.gz"
  [ -x "$bin/mpi_bench" ] || fail "no bundle at $bundle (unpack tpbench-bundle.tar.gz, or set TPB_BUNDLE)"
  export PATH=$PATH:/usr/local/cuda/bin
  command -v nvidia-smi >/dev/null || fail "nvidia-smi not found: no NVIDIA driver on this machine"
  gpus=$(timeout 10 nvidia-smi -L | grep -c '^GPU' || true)
  [ "$gpus" -ge 1 ] || fail "no GPU visible (nvidia-smi -L lists none)"
  python=""
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import h5py, numpy' 2>/dev/null; then
      python=$candidate
      break
    fi
  done
  [ -n "$python" ] || fail "no python3 with h5py and numpy (the summary reads the HDF5 files)"
  # The launcher's own check (glibc, cudart, cuBLAS, NCCL), in one line if something is missing.
  "$bin/tpbench-run" true || fail "the bundle cannot run on this node (the line above names what is missing)"
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0)
  gpu_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0)
  progress "GPU 0: $gpu_name, $gpu_mib MiB ($gpus visible; this check uses one); bundle $bundle"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
else
  gpu_mib=143771  # an H200's, for the printed --layers only
  python=python3
  echo "# device_check.sh --dry-run: budget (s) and command, in order"
fi

# --- 1. GPU tests (the CUDA backend's may not skip where a GPU is visible) ---------------------------
run gpu_tests_cuda_backend 60 "$bin/tpbench-run" "$bundle/libexec/tpbench/test_tp_decoder_cuda_gpu" --gtest_brief=1
run gpu_tests_nccl_sweep_1rank 25 "$bin/mpirun" -np 1 "$bin/tpbench-run" \
  "$bundle/libexec/tpbench/test_collectives_gpu" --gtest_brief=1
if [ "$dry_run" = 0 ]; then
  grep -q '\[  SKIPPED \]' "$logs/gpu_tests_cuda_backend.log" &&
    fail "CUDA backend tests skipped although a GPU is visible (see device_check/gpu_tests_cuda_backend.log)"
  gpu_tests_line="$(grep -h -E '^\[  PASSED  \]' "$logs"/gpu_tests_*.log | tr '\n' ' ')"
fi

# --- 2. Llama-3.1-8B TP-1, eager (with --check) and --graph --------------------------------------------------
# shellcheck disable=SC2054  # the commas belong to the flag values
grid=(--tp 1 --batch 1,8,32 --context 512,4096 --backend cuda -w 5 -n 30)
run step_8b_eager 60 "$bin/mpi_bench" step --model "$configs/llama-3.1-8b.json" "${grid[@]}" --check \
  -o "$logs/step_8b_eager.h5" --overwrite
run step_8b_graph 60 "$bin/mpi_bench" step --model "$configs/llama-3.1-8b.json" "${grid[@]}" --graph \
  -o "$logs/step_8b_graph.h5" --overwrite

# --- 3. Llama-3.1-70B shard replay, k = 2, 4, 8 ------------------------------------------------------------------
# Layers that fit at k = 2 (the largest shard) with the largest point's KV cache,
# in 85 % of the GPU's memory after the replicated embedding and the LM head shard.
layers=$("$python" - "$configs/llama-3.1-70b.json" "$gpu_mib" <<'EOF'
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
run replay_70b 55 "$bin/mpi_bench" replay --model "$configs/llama-3.1-70b.json" --layers "$layers" --tp 2,4,8 \
  --batch 1,8,32 --context 512,4096 --backend cuda -w 3 -n 10 -o "$logs/replay_70b.h5" --overwrite

# --- 4. device-to-device copy bandwidth ----------------------------------------------------------------------------
run d2d 15 "$bin/mpi_bench" d2d -o "$logs/d2d.h5" --overwrite

# --- 5. summary of the timing runs ----------------------------------------------------------------------------------
summary_py=$(cat <<'EOF'
import sys
import h5py
import numpy as np

logs, gpu_name, gpu_tests, layers = sys.argv[1:5]

def point(path, group):
    with h5py.File(path, "r") as f:
        g = f[group]
        return float(np.median(g["t_step_us"][()])), int(g.attrs["weight_bytes_per_step"])

with h5py.File(f"{logs}/d2d.h5", "r") as f:
    d2d_GBps = float(np.median(f["/d2d/copy_GBps"][()]))

print(f"tpbench device check on {gpu_name}")
print(f"GPU tests: {gpu_tests}")
print(f"device-to-device copy: {d2d_GBps:.1f} GB/s (median, bytes read + written, GB = 1e9 B)")
print()
print("Llama-3.1-8B TP-1 bf16: median t_step_us; weight_GBps = weight bytes per step / t_step")
print(f"{'batch':>5} {'context':>7} {'eager_us':>10} {'graph_us':>10} {'graph/eager':>11} "
      f"{'weight_GBps':>11} {'/d2d':>6}")
for b in (1, 8, 32):
    for c in (512, 4096):
        eager, weight_bytes = point(f"{logs}/step_8b_eager.h5", f"/step/k1/b{b}_c{c}")
        graph, _ = point(f"{logs}/step_8b_graph.h5", f"/step_graph/k1/b{b}_c{c}")
        weight_GBps = weight_bytes / graph / 1e3
        print(f"{b:>5} {c:>7} {eager:>10.1f} {graph:>10.1f} {graph / eager:>11.3f} "
              f"{weight_GBps:>11.1f} {weight_GBps / d2d_GBps:>6.3f}")
print("target: batch 1 graph weight_GBps >= 0.85 x d2d copy bandwidth (KV reads not counted as weight bytes)")
print()
print(f"Llama-3.1-70B shard replay (one GPU, no collectives), {layers} layers: median t_step_us")
print(f"{'k':>3} {'batch':>5} {'context':>7} {'t_step_us':>10} {'weight_GBps':>11}")
for k in (2, 4, 8):
    for b in (1, 8, 32):
        for c in (512, 4096):
            t, weight_bytes = point(f"{logs}/replay_70b.h5", f"/replay/k{k}/b{b}_c{c}")
            print(f"{k:>3} {b:>5} {c:>7} {t:>10.1f} {weight_bytes / t / 1e3:>11.1f}")
EOF
)
if [ "$dry_run" = 0 ]; then
  run summary 10 "$python" -c "$summary_py" "$logs" "$gpu_name" "${gpu_tests_line:-}" "$layers"
  cp "$logs/summary.log" "$out/summary.txt"
else
  run summary 10 "$python" -c "<summary of the HDF5 files>" "$logs" "<gpu name>" "<gpu tests line>" "$layers"
fi

# --- 6. compute-sanitizer memcheck, last: a sanitizer that cannot attach is recorded, not fatal ------------------
# replay --tp 1 runs the project's own kernels with no communicator (NCCL's
# kernels are not ours to check); --report-api-errors no: expected API errors
# (the lazy-loading probes of the CUDA libraries) are not findings.
sanitized=("$bin/tpbench-run" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 86
  --target-processes application-only
  "$bundle/libexec/tpbench/mpi_bench" replay --model "$configs/tiny-llama.json" --tp 1 --batch 3 --context 200
  --backend cuda -w 1 -n 2 -o "$logs/sanitizer_replay.h5" --overwrite)
sanitizer_budget=50
if [ "$dry_run" = 1 ]; then
  budget_total=$((budget_total + sanitizer_budget))
  printf '%4ss  %s\n' "$sanitizer_budget" "${sanitized[*]}"
  printf '%4ss  %s\n' 0 "tar -czf $out/device_check.tar.gz -C $out device_check"
  echo "# total of the budgets: ${budget_total} s"
  [ "$budget_total" -le 360 ] || { echo "device_check.sh: the budgets sum to ${budget_total} s, over 360 s" >&2; exit 1; }
  exit 0
fi
log=$logs/sanitizer_memcheck.log
progress "compute-sanitizer memcheck: tiny-llama replay --tp 1 b=3 c=200 (budget ${sanitizer_budget}s)"
if ! command -v compute-sanitizer >/dev/null; then
  sanitizer="not run: compute-sanitizer not found on this node"
elif timeout --kill-after=5 "$sanitizer_budget" "${sanitized[@]}" >"$log" 2>&1; then
  grep -q 'ERROR SUMMARY: 0 errors' "$log" || fail "compute-sanitizer memcheck: no clean summary (see device_check/sanitizer_memcheck.log)"
  sanitizer="memcheck on tiny-llama replay --tp 1 b=3 c=200: 0 errors"
elif grep -Eqi 'Device not supported|unable to (attach|initialize)|not supported on this (device|platform)|Internal Sanitizer Error|CUPTI' "$log" &&
  ! grep -q 'ERROR SUMMARY: [1-9]' "$log"; then
  sanitizer="not run: compute-sanitizer could not attach to the device ($(grep -Ei -m1 'error|unable|fail' "$log" | cut -c1-160))"
else
  fail "compute-sanitizer memcheck found errors or failed (see device_check/sanitizer_memcheck.log)"
fi
echo "compute-sanitizer: $sanitizer" >>"$out/summary.txt"

# --- 7. one archive + summary.txt ------------------------------------------------------------------------------------
tar -czf "$out/device_check.tar.gz" -C "$out" device_check
rm -rf "$logs"
cat "$out/summary.txt"
progress "done: $out/summary.txt and $out/device_check.tar.gz"
