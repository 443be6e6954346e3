#!/bin/sh
# tpbench-run CMD [ARG...]: runs CMD in the offline bundle's environment
# (jobs/bundle.sh copies this file to tpbench-bundle/bin/tpbench-run).
#   - the node's glibc must be at least the build machine's (glibc is not bundled);
#   - cudart and cuBLAS come from the node's CUDA toolkit: $CUDA_HOME, $CUDA_PATH,
#     the nvcc on PATH, /usr/local/cuda (lib64, lib, targets/x86_64-linux/lib);
#     else from the CUDA wheels (site-packages/nvidia/cu13/lib, or CUDA 12's
#     nvidia/cuda_runtime/lib and nvidia/cublas/lib);
#   - NCCL (libnccl.so.2) from $NCCL_HOME (NCCL_HOME/lib or NCCL_HOME) when it is
#     set, else the wheel (site-packages/nvidia/nccl/lib or nvidia/cu13/lib), else the toolkit;
#   - site-packages folders are found by glob, never by starting python3 (a bare
#     node may have none, or one that takes seconds): $VIRTUAL_ENV, $CONDA_PREFIX,
#     the python3 on PATH's prefix, ~/.local, /usr/local/lib, /usr/lib, /opt/conda,
#     each lib/python3*/{site,dist}-packages, then /usr/lib/python3/dist-packages;
#   - Open MPI and PMIx are told where they now live (OPAL_PREFIX, PMIX_PKGLIBDIR, PMIX_PKGDATADIR).
# What cannot be found is named in one line with where it was looked for, exit code 127.
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

# site-packages folders, by glob (sorted: the newest python3 last); a prefix is
# looked in once however many ways it is reached.
python_prefix=""
if python_on_path=$(command -v python3 2>/dev/null); then python_prefix=$(dirname "$(dirname "$python_on_path")"); fi
site_dirs=""
for prefix in "${VIRTUAL_ENV:-}" "${CONDA_PREFIX:-}" "$python_prefix" "${HOME:-/nonexistent}/.local" /usr/local /usr /opt/conda; do
  if [ -z "$prefix" ] || [ ! -d "$prefix/lib" ]; then continue; fi
  for dir in "$prefix"/lib/python3*/site-packages "$prefix"/lib/python3*/dist-packages; do
    [ -d "$dir" ] || continue
    case " $site_dirs " in *" $dir "*) ;; *) site_dirs="$site_dirs $dir" ;; esac
  done
done
[ -d /usr/lib/python3/dist-packages ] && site_dirs="$site_dirs /usr/lib/python3/dist-packages"
# wheel_dirs SUBDIR...: each site-packages folder's SUBDIRs, in that order.
wheel_dirs() {
  for site in $site_dirs; do
    for sub in "$@"; do echo "$site/$sub"; done
  done
}
cuda_wheel_subdirs="nvidia/cu13/lib nvidia/cuda_runtime/lib nvidia/cublas/lib"
nccl_wheel_subdirs="nvidia/nccl/lib nvidia/cu13/lib"
# shellcheck disable=SC2086  # lists
cuda_wheel_dirs=$(wheel_dirs $cuda_wheel_subdirs)
# shellcheck disable=SC2086
nccl_wheel_dirs=$(wheel_dirs $nccl_wheel_subdirs)
# looked_in DIR...: "a, b, c" (or "nowhere").
looked_in() {
  list=""
  for dir in "$@"; do list="${list:+$list, }$dir"; done
  echo "${list:-nowhere}"
}
# wheels_looked_in SUBDIR...: the wheel folders looked in, or where no site-packages was found.
wheels_looked_in() {
  if [ -n "$site_dirs" ]; then
    # shellcheck disable=SC2046  # a list
    looked_in $(wheel_dirs "$@")
  else
    # shellcheck disable=SC2086  # unquoted: the unset ones drop out
    echo "no site-packages (lib/python3*/{site,dist}-packages) under $(looked_in ${VIRTUAL_ENV:-} ${CONDA_PREFIX:-} \
      $python_prefix "${HOME:-/nonexistent}/.local" /usr/local /usr /opt/conda)"
  fi
}

for soname in $TPB_BUNDLE_CUDA_LIBS; do
  case $soname in
    libnccl.so*)
      # An NCCL_HOME given is the only place looked in: a wrong one is named, not worked around.
      # shellcheck disable=SC2086  # the *_dirs are lists
      if [ -n "${NCCL_HOME:-}" ] && dir=$(find_lib "$soname" "$NCCL_HOME/lib" "$NCCL_HOME/lib64" "$NCCL_HOME"); then
        nccl_dir=$dir
      elif [ -z "${NCCL_HOME:-}" ] && dir=$(find_lib "$soname" $nccl_wheel_dirs $toolkit_dirs); then
        nccl_dir=$dir
      elif [ -n "${NCCL_HOME:-}" ]; then
        problem "$soname (not in NCCL_HOME=$NCCL_HOME/lib)"
      else
        # shellcheck disable=SC2086
        problem "$soname (set NCCL_HOME to a folder with lib/$soname, or install the nvidia-nccl wheel; wheels: $(wheels_looked_in $nccl_wheel_subdirs); toolkits: $(looked_in $toolkit_dirs))"
      fi
      ;;
    *)
      # shellcheck disable=SC2086
      if dir=$(find_lib "$soname" $toolkit_dirs $cuda_wheel_dirs); then
        add_dir "$dir"
      else
        # shellcheck disable=SC2086
        problem "$soname (no CUDA toolkit or CUDA wheel holds it, set CUDA_HOME; toolkits: $(looked_in $toolkit_dirs); wheels: $(wheels_looked_in $cuda_wheel_subdirs))"
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
