#!/usr/bin/env bash
# Makes DIR/tpbench-bundle.tar.gz (at most 48 MiB): a relocatable, offline tree
# that runs mpi_bench and the GPU tests on a node holding only glibc >= this
# machine's, a CUDA toolkit and an NCCL library (NCCL_HOME or the Python wheel).
#
#   tpbench-bundle/
#     bin/mpi_bench, bin/mpirun   wrappers: check the node, then exec the real program
#     bin/tpbench-run CMD...      runs any command (a test, compute-sanitizer) in the bundle's environment
#     bin/orted                   Open MPI's daemon (a singleton mpi_bench starts it from here)
#     libexec/tpbench/            the real executables, RPATH $ORIGIN/../../lib
#     lib/                        every non-glibc, non-CUDA library they load, RPATH $ORIGIN
#     lib/x86_64-linux-gnu/openmpi/lib/openmpi3/   Open MPI's components, where OPAL_PREFIX puts them
#     share/openmpi, pmix/        Open MPI's and PMIx's help files and PMIx's components
#     share/tpbench/              model configs, bundle.env (what the launcher checks), gpu_tests.txt
#     device_check.sh             the device check, run from here
#
# Usage: jobs/bundle.sh DIR
# Builds mpi_bench and the GPU test executables in $TPB_BUILD_DIR (default
# build/, configured by jobs/build.sh if absent) with $TPB_BUILD_JOBS jobs.
# Needs patchelf (jobs/setup.sh installs it).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: jobs/bundle.sh DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TPB_BUILD_DIR:-$root/build}
jobs=${TPB_BUILD_JOBS:-$(nproc)}
max_bytes=$((48 * 1024 * 1024))
fail() {
  echo "jobs/bundle.sh: $*" >&2
  exit 1
}
command -v patchelf >/dev/null || fail "patchelf not found (jobs/setup.sh installs it)"
mkdir -p "$1"
out=$(cd "$1" && pwd)

# --- build --------------------------------------------------------------------------------------
[ -f "$build/CMakeCache.txt" ] || TPB_BUILD_DIR=$build TPB_BUILD_JOBS=$jobs TPB_BUILD_TARGET=mpi_bench \
  "$root/jobs/build.sh"
gpu_tests=(test_tp_decoder_cuda_gpu test_collectives_gpu)
cmake --build "$build" -j "$jobs" --target mpi_bench >/dev/null
# What the binary holds, not what the cache says: linked against cudart, with
# device code for both GPU generations.
# (Outputs are captured before grep -q reads them: under pipefail, grep -q
# leaving early would fail the pipeline with the writer's SIGPIPE.)
linked=$(ldd "$build/mpi_bench/mpi_bench")
grep -q 'libcudart\.so' <<<"$linked" ||
  fail "$build/mpi_bench/mpi_bench has no CUDA backend (built without nvcc): the bundle is for GPU nodes"
fatbin=$(mktemp)
objcopy -O binary --only-section=.nv_fatbin "$build/mpi_bench/mpi_bench" "$fatbin"
archs=$(strings "$fatbin" | grep -Eo 'sm_[0-9]+[a-z]?' | sort -u | tr '\n' ' ')
rm -f "$fatbin"
for arch in sm_80 sm_90; do
  [[ " $archs" == *" $arch "* ]] || fail "mpi_bench holds device code for ${archs:-no architecture}, not $arch"
done
cmake --build "$build" -j "$jobs" --target "${gpu_tests[@]}" >/dev/null
executables=("$build/mpi_bench/mpi_bench" "$build/tests/tp_decoder_cuda/test_tp_decoder_cuda_gpu"
  "$build/tests/collectives/test_collectives_gpu")

# --- what stays out -------------------------------------------------------------------------------
# glibc: the node's own (checked by the launcher). CUDA: the node's toolkit and
# driver. Transports Open MPI can use but a one-node check does not need, whose
# libraries are large or absent on the node (UCX, libfabric, PSM, verbs, Java):
# a component that needs one of them is left out, and Open MPI runs without it.
is_glibc() { [[ $1 =~ ^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libanl|libnsl|libmvec)\.so|^ld-linux ]]; }
is_cuda() { [[ $1 =~ ^lib(cuda|cudart|cublas|cublasLt|nccl|nvidia-ml|nvrtc)\.so ]]; }
is_unused_transport() { [[ $1 =~ ^lib(uc[pstm]|fabric|psm_infinipath|psm2|ibverbs|rdmacm|jvm|efa|mlx5)\.so ]]; }

is_elf() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }

# "soname path" for every library `file` loads, as the host resolves them.
dependencies() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 } $2 == "=>" && $3 == "not" { print $1, "missing" }'
}

stage=$out/tpbench-bundle.staging
rm -rf "$stage"
b=$stage/tpbench-bundle
mkdir -p "$b/bin" "$b/libexec/tpbench" "$b/lib" "$b/share/tpbench"

# --- Open MPI and PMIx, in the layout OPAL_PREFIX / PMIX_PKGLIBDIR/PMIX_PKGDATADIR expect ------------------
ompi_info --path all >/dev/null 2>&1 || fail "ompi_info not found (Open MPI from jobs/setup.sh)"
ompi_path() { ompi_info --path "$1" --parsable | sed -n "s/^path:$1://p"; }
ompi_prefix=$(ompi_path prefix)
ompi_pkglibdir=$(ompi_path pkglibdir)
ompi_pkgdatadir=$(ompi_path pkgdatadir)
ompi_sysconfdir=$(ompi_path sysconfdir)
[ "${ompi_pkglibdir#"$ompi_prefix"/}" != "$ompi_pkglibdir" ] || fail "Open MPI's pkglibdir $ompi_pkglibdir is not under its prefix"
components_rel=${ompi_pkglibdir#"$ompi_prefix"/}
mkdir -p "$b/$components_rel" "$b/share/openmpi" "$b/etc/openmpi"
cp -r "$ompi_pkgdatadir/." "$b/share/openmpi/"
for conf in openmpi-mca-params.conf openmpi-default-hostfile; do
  if [ -f "$ompi_sysconfdir/$conf" ]; then cp "$ompi_sysconfdir/$conf" "$b/etc/openmpi/"; fi
done
orterun=$(readlink -f "$(command -v mpirun)")
orted=$(command -v orted) || fail "orted not found next to mpirun"
pmix_lib=$(dependencies "$ompi_pkglibdir/mca_pmix_ext3x.so" | awk '$1 ~ /^libpmix\.so/ { print $2 }')
[ -n "$pmix_lib" ] || fail "Open MPI's ext3x component loads no libpmix"
pmix_prefix=$(cd "$(dirname "$(readlink -f "$pmix_lib")")/.." && pwd)
mkdir -p "$b/pmix/lib" "$b/pmix/share"
cp -r "$pmix_prefix/lib/pmix" "$b/pmix/lib/"
cp -r "$pmix_prefix/share/pmix" "$b/pmix/share/"

# --- executables and components -------------------------------------------------------------------
for exe in "${executables[@]}"; do
  [ -x "$exe" ] || fail "$exe was not built"
  cp "$exe" "$b/libexec/tpbench/"
done
cp "$orterun" "$b/libexec/tpbench/orterun"
cp "$orted" "$b/bin/orted"
left_out=()
for component in "$ompi_pkglibdir"/*.so "$pmix_prefix"/lib/pmix/*.so; do
  unwanted=$(dependencies "$component" | awk '{ print $1 }' | while read -r soname; do
    if is_unused_transport "$soname"; then echo "$soname"; fi
  done)
  name=$(basename "$component")
  if [ -n "$unwanted" ]; then
    left_out+=("$name")
    rm -f "$b/$components_rel/$name" "$b/pmix/lib/pmix/$name"
  elif [[ $component == "$ompi_pkglibdir"/* ]]; then
    cp "$component" "$b/$components_rel/"
  fi
done

# --- every library they load, once, named by its soname --------------------------------------------
elves=()
while IFS= read -r -d '' f; do
  if is_elf "$f"; then elves+=("$f"); fi
done < <(find "$b/bin" "$b/libexec" "$b/$components_rel" "$b/pmix/lib/pmix" -type f -print0)
declare -A bundled=()
cuda_sonames=()
missing=()
for elf in "${elves[@]}"; do
  while read -r soname path; do
    if is_glibc "$soname" || [ -n "${bundled[$soname]:-}" ]; then continue; fi
    if is_cuda "$soname"; then
      [[ " ${cuda_sonames[*]} " == *" $soname "* ]] || cuda_sonames+=("$soname")
      continue
    fi
    if [ "$path" = missing ]; then
      missing+=("$soname (for $(basename "$elf"))")
      continue
    fi
    is_unused_transport "$soname" && fail "$(basename "$elf") needs $soname, which the bundle leaves out"
    cp -L "$path" "$b/lib/$soname"
    bundled[$soname]=1
  done < <(dependencies "$elf")
done
[ ${#missing[@]} -eq 0 ] || fail "not found on this machine: ${missing[*]}"

# --- RPATHs relative to each file: DT_RPATH (not RUNPATH) so that the node's LD_LIBRARY_PATH
# cannot put another libstdc++ or libmpi ahead of the bundle's ----------------------------------
relative_to_lib() { realpath --relative-to="$(dirname "$1")" "$b/lib"; }
while IFS= read -r -d '' f; do
  is_elf "$f" || continue
  chmod u+w "$f"
  rel=$(relative_to_lib "$f")
  if [ "$rel" = . ]; then rpath="\$ORIGIN"; else rpath="\$ORIGIN/$rel"; fi
  patchelf --force-rpath --set-rpath "$rpath" "$f"
  # Debug sections only: the symbols stay for backtraces and compute-sanitizer.
  strip --strip-debug "$f"
done < <(find "$b" -type f -print0)

# --- launcher, configs and the device check ---------------------------------------------------------
glibc_build=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
cat >"$b/share/tpbench/bundle.env" <<EOF
# Written by jobs/bundle.sh; read by bin/tpbench-run.
TPB_BUNDLE_GIT=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
TPB_BUNDLE_GLIBC=$glibc_build
TPB_BUNDLE_CUDA_ARCHS="$archs"
TPB_BUNDLE_CUDA_LIBS="${cuda_sonames[*]}"
TPB_BUNDLE_OMPI_COMPONENTS=$components_rel
EOF
cp "$root/jobs/lib/bundle-run.sh" "$b/bin/tpbench-run"
for name in mpi_bench mpirun; do
  real=$name
  if [ "$name" = mpirun ]; then real=orterun; fi
  cat >"$b/bin/$name" <<'EOF'
#!/bin/sh
# Runs the bundled REAL in the bundle's environment (see tpbench-run).
exec "$(dirname "$0")/tpbench-run" "$(dirname "$0")/../libexec/tpbench/REAL" "$@"
EOF
  sed -i "s/REAL/$real/g" "$b/bin/$name"
done
chmod 755 "$b/bin/tpbench-run" "$b/bin/mpi_bench" "$b/bin/mpirun"
cp -r "$root/tp_decoder/configs" "$b/share/tpbench/configs"
for test in "${gpu_tests[@]}"; do echo "$test"; done >"$b/share/tpbench/gpu_tests.txt"
cp "$root/jobs/device_check.sh" "$b/device_check.sh"

# --- one archive ---------------------------------------------------------------------------------------
archive=$out/tpbench-bundle.tar.gz
tar -C "$stage" -cf - tpbench-bundle | gzip -9 >"$archive.part"
mv "$archive.part" "$archive"
rm -rf "$stage"
bytes=$(stat -c %s "$archive")
[ "$bytes" -le "$max_bytes" ] || fail "$archive is $bytes B, over the 48 MiB limit"
echo "jobs/bundle.sh: $archive: $((bytes / 1024 / 1024)) MiB ($bytes B), ${#bundled[@]} libraries," \
  "CUDA from the node: ${cuda_sonames[*]}; components left out (unused transports): ${#left_out[@]}"
