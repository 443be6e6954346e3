#!/bin/bash
# Runs inside the bare Debian 12 root (run_in_bare_root.sh): nothing of
# tpbench's dependencies is installed here; the bundle is mounted read-only at
# /opt/tpbench/tpbench-bundle, the CUDA toolkit at /usr/local/cuda, and
# NCCL_HOME points at a wheel-like folder holding lib/libnccl.so.2.
set -euo pipefail
b=/opt/tpbench/tpbench-bundle
configs=$b/share/tpbench/configs
out=/tmp/bundle-test
mkdir -p "$out"
step() { echo "[bare root] $*"; }

step "the root holds none of the project's dependencies"
# (Outputs are captured before grep -q reads them: under pipefail, grep -q
# leaving early would fail the pipeline with the writer's SIGPIPE.)
installed=$(ldconfig -p)
for soname in libmpi.so.40 libhdf5_serial.so.103 libopenblas.so.0 libfmt.so.9 libcrypto.so.3 libgomp.so.1 libgfortran.so.5; do
  if grep -q "$soname" <<<"$installed"; then
    echo "FAIL: $soname is installed in the bare root" >&2
    exit 1
  fi
done

step "the launcher names what it cannot find, in one line"
set +e
missing=$(NCCL_HOME=/tmp/no-nccl "$b/bin/mpi_bench" --help 2>&1)
rc=$?
set -e
if [ "$rc" -ne 127 ] || [ "$(echo "$missing" | wc -l)" -ne 1 ] ||
  [[ $missing != *"libnccl.so.2 (not in NCCL_HOME=/tmp/no-nccl/lib)"* ]]; then
  echo "FAIL: expected one line naming libnccl.so.2, exit 127; got rc=$rc: $missing" >&2
  exit 1
fi
mkdir -p /tmp/old-glibc
printf '#!/bin/sh\necho "glibc 2.31"\n' >/tmp/old-glibc/getconf
chmod +x /tmp/old-glibc/getconf
set +e
old=$(PATH=/tmp/old-glibc:$PATH "$b/bin/mpi_bench" --help 2>&1)
rc=$?
set -e
if [ "$rc" -ne 127 ] || [[ $old != *"glibc >= "*"(the node has 2.31)"* ]]; then
  echo "FAIL: an older glibc was not refused: rc=$rc: $old" >&2
  exit 1
fi
loaded=$("$b/bin/tpbench-run" ldd "$b/libexec/tpbench/mpi_bench")
if ! grep -q "libnccl.so.2 => $NCCL_HOME/lib/libnccl.so.2" <<<"$loaded"; then
  echo "FAIL: NCCL not loaded from NCCL_HOME=$NCCL_HOME: $(echo "$loaded" | grep nccl)" >&2
  exit 1
fi
outside_cuda=$(grep -v ' => /usr/local/cuda/' <<<"$loaded")
if grep -Eq 'not found| => /(usr/)?lib/x86_64-linux-gnu/lib(mpi|hdf5|openblas|fmt|crypto|gomp|gfortran)' <<<"$outside_cuda"; then
  echo "FAIL: mpi_bench loads a library from outside the bundle:" >&2
  echo "$loaded" >&2
  exit 1
fi

step "the launcher finds cudart, cuBLAS and NCCL in the CUDA wheels' layout, by glob, without python3"
# A node without a toolkit: in a private mount namespace the toolkit moves from
# /usr/local/cuda to a folder the launcher never looks in, and its libraries
# are reached only through site-packages (pip install --user: ~/.local/lib/python3.11)
# as nvidia/cu13/lib (cudart, cuBLAS) and nvidia/nccl/lib. A python3 that marks
# being started stands first on PATH.
if command -v python3 >/dev/null; then
  echo "FAIL: the bare root has a python3 ($(command -v python3))" >&2
  exit 1
fi
site=/tmp/wheel-home/.local/lib/python3.11/site-packages
mkdir -p /tmp/hidden-cuda "$site/nvidia/cu13/lib" "$site/nvidia/nccl/lib" /tmp/python-trap /tmp/empty-home
printf '#!/bin/sh\ntouch /tmp/python3-started\nexit 1\n' >/tmp/python-trap/python3
chmod +x /tmp/python-trap/python3
# shellcheck source=/dev/null  # written by jobs/bundle.sh
. "$b/share/tpbench/bundle.env"
for soname in $TPB_BUNDLE_CUDA_LIBS; do
  case $soname in
    libnccl.so*) ln -s "/tmp/hidden-cuda/lib64/$soname" "$site/nvidia/nccl/lib/$soname" ;;
    *) ln -s "/tmp/hidden-cuda/lib64/$soname" "$site/nvidia/cu13/lib/$soname" ;;
  esac
done
export b site
# shellcheck disable=SC2016  # expanded by the inner shell
# unchanged: inside the chroot / is no mount point, and the outer namespace is private already.
unshare --mount --propagation unchanged -- /bin/bash -euo pipefail -c '
  mount --bind /usr/local/cuda /tmp/hidden-cuda
  umount /usr/local/cuda
  [ ! -e /usr/local/cuda/lib64 ] || { echo "FAIL: the toolkit is still at /usr/local/cuda" >&2; exit 1; }
  export PATH=/tmp/python-trap:$PATH
  unset NCCL_HOME
  set +e
  missing=$(HOME=/tmp/empty-home "$b/bin/tpbench-run" true 2>&1)
  rc=$?
  set -e
  if [ "$rc" -ne 127 ] || [ "$(echo "$missing" | wc -l)" -ne 1 ] ||
    [[ $missing != *"libcudart.so"*"toolkits: /usr/local/cuda/lib64, "*"wheels: no site-packages "*"/tmp/empty-home/.local"* ]]; then
    echo "FAIL: without toolkit or wheel, expected one line naming libcudart and where it looked, exit 127; got rc=$rc: $missing" >&2
    exit 1
  fi
  echo "[bare root] no toolkit, no wheel: $missing"
  loaded=$(HOME=/tmp/wheel-home "$b/bin/tpbench-run" ldd "$b/libexec/tpbench/mpi_bench")
  for lib in "libcudart.so.[0-9]* => $site/nvidia/cu13/lib/" "libcublas.so.[0-9]* => $site/nvidia/cu13/lib/" \
    "libnccl.so.2 => $site/nvidia/nccl/lib/"; do
    grep -Eq "$lib" <<<"$loaded" || { echo "FAIL: not loaded from the wheel: $lib" >&2; echo "$loaded" >&2; exit 1; }
  done
  # A CUDA-built TP-1 step run on CPU, its CUDA libraries from the wheel: no communicator opened.
  ran=$(HOME=/tmp/wheel-home "$b/bin/mpi_bench" step --model "$b/share/tpbench/configs/tiny-llama.json" --tp 1 \
    --batch 1 --context 8 --backend cpu -w 1 -n 2)
  grep -q "# communicators opened on rank 0: 0" <<<"$ran" || { echo "FAIL: step --tp 1 opened a communicator: $ran" >&2; exit 1; }
'
[ ! -e /tmp/python3-started ] || { echo "FAIL: the launcher started python3" >&2; exit 1; }

step "mpi_bench --help"
"$b/bin/mpi_bench" --help >"$out/help.txt"
grep -q sweep "$out/help.txt"

step "mpi_bench info (singleton: no mpirun)"
"$b/bin/mpi_bench" info | tee "$out/info.txt"

step "CPU TP-1 step on tiny-llama (singleton)"
"$b/bin/mpi_bench" step --model "$configs/tiny-llama.json" --tp 1 --batch 1,2 --context 16 --backend cpu -w 1 -n 3 \
  --check -o "$out/step.h5" --overwrite
"$b/bin/mpi_bench" verify "$out/step.h5"

step "2-rank all-reduce sweep through the bundled mpirun"
"$b/bin/mpirun" -np 2 "$b/bin/mpi_bench" sweep -b 8 -e 64K -f 4 -n 5 -o "$out/sweep.h5" --overwrite 2>&1 |
  tee "$out/sweep.log"
# A help file or component Open MPI or PMIx cannot find at the new location says so in its output.
if grep -q "You were supposed to get help" "$out/sweep.log"; then
  echo "FAIL: a help file was not found from the bundle's location (see above)" >&2
  exit 1
fi
step "Open MPI's help files from the bundle's location"
set +e
refused=$("$b/bin/mpirun" -np 1 /tmp/no-such-program 2>&1)
set -e
if ! grep -q "could not access" <<<"$refused" || grep -q "You were supposed to get help" <<<"$refused"; then
  echo "FAIL: mpirun's help text for a missing program did not come from the bundle: $refused" >&2
  exit 1
fi
step "verify the sweep's results file"
"$b/bin/mpi_bench" verify "$out/sweep.h5"
step "all passed"
