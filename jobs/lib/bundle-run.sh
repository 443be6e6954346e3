#!/bin/sh
# tpbench-run CMD [ARG...]: runs CMD in the offline bundle's environment
# (jobs/bundle.sh copies this file to tpbench-bundle/bin/tpbench-run).
#   - the node's glibc must be at least the build machine's (glibc is not bundled);
#   - cudart and cuBLAS come from the node's CUDA toolkit: $CUDA_HOME, $CUDA_PATH,
#     the nvcc on PATH, /usr/local/cuda (lib64, lib, targets/x86_64-linux/lib);
#   - NCCL (libnccl.so.2) from $NCCL_HOME (NCCL_HOME/lib or NCCL_HOME) when it is
#     set, else the Python wheel (site-packages/nvidia/nccl/lib of python3), else the toolkit;
#   - Open MPI and PMIx are told where they now live (OPAL_PREFIX, PMIX_PKGLIBDIR, PMIX_PKGDATADIR).
# What cannot be found is named in one line, exit code 127.
set -eu
bundle=$(cd "$(dirname "$0")/.." && pwd -P)
# shellcheck source=/dev/null  # written by jobs/bundle.sh
. "$bundle/share/tpbench/bundle.env"

problems=""
problem() { problems="${problems:+$problems; }$1"; }

node_glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }') || node_glibc=""
if [ -z "$node_glibc" ]; then
  problem "the node's glibc version (getconf GNU_LIBC_VERSION failed; the bundle needs glibc >= $TPB_BUNDLE_GLIBC)"
elif [ "$(printf '%s\n%s\n' "$node_glibc" "$TPB_BUNDLE_GLIBC" | sort -V | head -n 1)" != "$TPB_BUNDLE_GLIBC" ]; then
  problem "glibc >= $TPB_BUNDLE_GLIBC (the node has $node_glibc)"
fi

toolkits=""
for candidate in "${CUDA_HOME:-}" "${CUDA_PATH:-}" "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /none/bin/nvcc)")")" \
  /usr/local/cuda; do
  [ -n "$candidate" ] && [ -d "$candidate" ] && toolkits="$toolkits $candidate"
done
lib_dirs=""
add_dir() { case ":$lib_dirs:" in *":$1:"*) ;; *) lib_dirs="${lib_dirs:+$lib_dirs:}$1" ;; esac; }
# find_lib SONAME DIR...: the first DIR holding SONAME.
find_lib() {
  soname=$1
  shift
  for dir in "$@"; do
    if [ -e "$dir/$soname" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}
toolkit_dirs=""
nccl_dir=""
for t in $toolkits; do toolkit_dirs="$toolkit_dirs $t/lib64 $t/lib $t/targets/x86_64-linux/lib"; done

for soname in $TPB_BUNDLE_CUDA_LIBS; do
  case $soname in
    libnccl.so*)
      wheel=""
      if [ -z "${NCCL_HOME:-}" ] && command -v python3 >/dev/null 2>&1; then
        wheel=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)
      fi
      # An NCCL_HOME given is the only place looked in: a wrong one is named, not worked around.
      # shellcheck disable=SC2086  # toolkit_dirs is a list
      if [ -n "${NCCL_HOME:-}" ] && dir=$(find_lib "$soname" "$NCCL_HOME/lib" "$NCCL_HOME/lib64" "$NCCL_HOME"); then
        nccl_dir=$dir
      elif [ -z "${NCCL_HOME:-}" ] && dir=$(find_lib "$soname" ${wheel:+"$wheel/lib"} $toolkit_dirs); then
        nccl_dir=$dir
      elif [ -n "${NCCL_HOME:-}" ]; then
        problem "$soname (not in NCCL_HOME=$NCCL_HOME/lib)"
      else
        problem "$soname (set NCCL_HOME to a folder with lib/$soname, or give python3 the nvidia-nccl wheel)"
      fi
      ;;
    *)
      # shellcheck disable=SC2086
      if dir=$(find_lib "$soname" $toolkit_dirs); then
        add_dir "$dir"
      else
        problem "$soname (no CUDA toolkit holds it:${toolkits:- none found}; set CUDA_HOME)"
      fi
      ;;
  esac
done

if [ -n "$problems" ]; then
  echo "tpbench-run: cannot run here, not found: $problems" >&2
  exit 127
fi

# NCCL's folder first: a toolkit folder may hold another libnccl.so.2.
export LD_LIBRARY_PATH="${nccl_dir:+$nccl_dir:}$lib_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$bundle"
export OPAL_SYSCONFDIR="$bundle/etc/openmpi"
export PMIX_PKGLIBDIR="$bundle/pmix/lib/pmix"    # PMIx's components
export PMIX_PKGDATADIR="$bundle/pmix/share/pmix"  # and help files
# Open MPI's ssh/rsh launcher refuses to start, even for local ranks and the
# singleton's daemon, when neither ssh nor rsh exists (a bare node): launch locally.
if [ -z "${OMPI_MCA_plm:-}" ] && ! command -v ssh >/dev/null 2>&1 && ! command -v rsh >/dev/null 2>&1; then
  export OMPI_MCA_plm=isolated
fi
export TPB_CONFIG_DIR="${TPB_CONFIG_DIR:-$bundle/share/tpbench/configs}"
exec "$@"
