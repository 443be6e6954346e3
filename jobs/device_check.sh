#!/usr/bin/env bash
# Device check on a machine with one NVIDIA GPU, offline, in under 8 minutes:
#   1. build for the local GPU (CMAKE_CUDA_ARCHITECTURES=native)
#   2. the GPU tests (ctest -L gpu); the CUDA backend's own may not skip
#   3. compute-sanitizer on a tiny config: memcheck eager and graph, racecheck eager
#   4. Llama-3.1-8B TP-1 bf16 eager vs --graph, b in {1,8,32}, c in {512,4096}
#   5. replay of Llama-3.1-70B shards for k = 2, 4, 8 (--layers sized to memory)
#   6. device-to-device copy bandwidth (the 0.85x bound of the batch-1 step)
# Writes the HDF5 files, every log and summary.txt into OUT_DIR.
# Usage: jobs/device_check.sh OUT_DIR
# Assumes jobs/setup.sh's packages, nvcc and compute-sanitizer are installed
# (nothing is downloaded). Knobs: TPB_BUILD_DIR (default OUT_DIR/build),
# TPB_BUILD_JOBS (default nproc).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: jobs/device_check.sh OUT_DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
build=${TPB_BUILD_DIR:-$out/build}
jobs=${TPB_BUILD_JOBS:-$(nproc)}
configs=$root/tp_decoder/configs
started=$(date +%s)

progress() { echo "[device_check +$(($(date +%s) - started))s] $*"; }
fail() {
  echo "[device_check] FAILED: $*" >&2
  exit 1
}
trap 'echo "[device_check] FAILED at line $LINENO: $BASH_COMMAND (logs in $out)" >&2' ERR

# --- prerequisites: fail in seconds, not after the build ------------------------------------
export PATH=$PATH:/usr/local/cuda/bin
command -v nvidia-smi >/dev/null || fail "nvidia-smi not found: no NVIDIA driver on this machine"
gpus=$(nvidia-smi -L | grep -c '^GPU' || true)
[ "$gpus" -ge 1 ] || fail "no GPU visible (nvidia-smi -L lists none)"
command -v nvcc >/dev/null || fail "nvcc not found (PATH or /usr/local/cuda/bin)"
command -v compute-sanitizer >/dev/null || fail "compute-sanitizer not found (PATH or /usr/local/cuda/bin)"
command -v mpirun >/dev/null || fail "mpirun not found (run jobs/setup.sh first)"
python=""
for candidate in /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import h5py, numpy' 2>/dev/null; then
    python=$candidate
    break
  fi
done
[ -n "$python" ] || fail "no python3 with h5py and numpy (the summary reads the HDF5 files)"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0)
gpu_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0)
progress "GPU 0: $gpu_name, $gpu_mib MiB ($gpus visible; this check uses one)"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
bench=$build/mpi_bench/mpi_bench

# --- 1. build -------------------------------------------------------------------------
progress "configure + build for the local GPU into $build ($jobs jobs)"
timeout 300 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTPB_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=native >"$out/configure.log" 2>&1 || fail "configure (see $out/configure.log)"
timeout 330 cmake --build "$build" -j "$jobs" >"$out/build.log" 2>&1 || fail "build (see $out/build.log)"
progress "built $bench"

# --- 2. GPU tests ----------------------------------------------------------------------
progress "GPU tests: ctest -L gpu"
(cd "$build" && timeout 240 ctest -L gpu -j 4 --timeout 180 --output-on-failure) >"$out/gpu_tests.log" 2>&1 ||
  fail "GPU tests (see $out/gpu_tests.log)"
# The CUDA backend's tests skip only without a device: here a skip is a failure.
if grep -E '^[[:space:]]*[0-9]+ - .*Cuda.*\(Skipped\)' "$out/gpu_tests.log"; then
  fail "CUDA backend tests skipped although a GPU is visible (see $out/gpu_tests.log)"
fi
gpu_tests_line=$(grep -E 'tests passed' "$out/gpu_tests.log" | tail -n 1)
progress "GPU tests: $gpu_tests_line"

# --- 3. compute-sanitizer on a tiny config ------------------------------------------------
# memcheck (out-of-bounds and misaligned accesses) eager and captured as a graph,
# racecheck (shared-memory hazards: the attention kernel's scores) eager.
tiny=(step --model "$configs/tiny-llama.json" --tp 1 --batch 3 --context 200 --backend cuda -w 1 -n 2)
for run in memcheck:eager memcheck:graph racecheck:eager; do
  tool=${run%%:*}
  mode=${run##*:}
  if [ "$mode" = graph ]; then extra=(--graph); else extra=(--check); fi
  log=$out/sanitizer_${tool}_${mode}.log
  progress "compute-sanitizer --tool $tool: tiny-llama b=3 c=200 ($mode)"
  timeout 180 mpirun -np 1 compute-sanitizer --tool "$tool" --error-exitcode 86 \
    "$bench" "${tiny[@]}" "${extra[@]}" >"$log" 2>&1 || fail "compute-sanitizer $tool ($mode) (see $log)"
  grep -Eq '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$log" ||
    fail "compute-sanitizer $tool ($mode): no clean summary (see $log)"
done

# --- 4. Llama-3.1-8B TP-1, eager and graph --------------------------------------------------
# shellcheck disable=SC2054  # the commas belong to the flag values
grid=(--tp 1 --batch 1,8,32 --context 512,4096 --backend cuda -w 5 -n 30)
progress "Llama-3.1-8B TP-1 eager (with --check): b 1,8,32 x c 512,4096"
timeout 240 mpirun -np 1 "$bench" step --model "$configs/llama-3.1-8b.json" "${grid[@]}" --check \
  -o "$out/step_8b_eager.h5" --overwrite 2>&1 | tee "$out/step_8b_eager.log"
progress "Llama-3.1-8B TP-1 --graph: b 1,8,32 x c 512,4096"
timeout 240 mpirun -np 1 "$bench" step --model "$configs/llama-3.1-8b.json" "${grid[@]}" --graph \
  -o "$out/step_8b_graph.h5" --overwrite 2>&1 | tee "$out/step_8b_graph.log"

# --- 5. Llama-3.1-70B shard replay ------------------------------------------------------------
# Layers that fit at k = 2 (the largest shard) with the largest point's KV
# cache, in 85 % of the GPU's memory after the replicated embedding and the LM head.
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
progress "Llama-3.1-70B replay k = 2,4,8 with --layers $layers: b 1,8,32 x c 512,4096"
timeout 240 mpirun -np 1 "$bench" replay --model "$configs/llama-3.1-70b.json" --layers "$layers" --tp 2,4,8 \
  --batch 1,8,32 --context 512,4096 --backend cuda -w 3 -n 10 \
  -o "$out/replay_70b.h5" --overwrite 2>&1 | tee "$out/replay_70b.log"

# --- 6. device-to-device copy bandwidth ---------------------------------------------------------
progress "device-to-device copy bandwidth"
timeout 120 mpirun -np 1 "$bench" d2d -o "$out/d2d.h5" --overwrite 2>&1 | tee "$out/d2d.log"

# --- summary ----------------------------------------------------------------------------------
progress "summary"
"$python" - "$out" "$gpu_name" "$gpu_tests_line" "$layers" >"$out/summary.txt" <<'EOF'
import sys
import h5py
import numpy as np

out, gpu_name, gpu_tests, layers = sys.argv[1:5]

def point(path, group):
    with h5py.File(path, "r") as f:
        g = f[group]
        t_step = float(np.median(g["t_step_us"][()]))
        return t_step, int(g.attrs["weight_bytes_per_step"])

with h5py.File(f"{out}/d2d.h5", "r") as f:
    d2d_GBps = float(np.median(f["/d2d/copy_GBps"][()]))

print(f"tpbench device check on {gpu_name}")
print(f"GPU tests: {gpu_tests}")
print("compute-sanitizer on tiny-llama b=3 c=200: memcheck eager and graph, racecheck eager: 0 errors")
print(f"device-to-device copy: {d2d_GBps:.1f} GB/s (median, bytes read + written, GB = 1e9 B)")
print()
print("Llama-3.1-8B TP-1 bf16: median t_step_us; weight_GBps = weight bytes per step / t_step")
print(f"{'batch':>5} {'context':>7} {'eager_us':>10} {'graph_us':>10} {'graph/eager':>11} "
      f"{'weight_GBps':>11} {'/d2d':>6}")
for b in (1, 8, 32):
    for c in (512, 4096):
        eager, weight_bytes = point(f"{out}/step_8b_eager.h5", f"/step/k1/b{b}_c{c}")
        graph, _ = point(f"{out}/step_8b_graph.h5", f"/step_graph/k1/b{b}_c{c}")
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
            t, weight_bytes = point(f"{out}/replay_70b.h5", f"/replay/k{k}/b{b}_c{c}")
            print(f"{k:>3} {b:>5} {c:>7} {t:>10.1f} {weight_bytes / t / 1e3:>11.1f}")
EOF
cat "$out/summary.txt"
progress "done: $out/summary.txt"
