#!/usr/bin/env bash
# The ctest `bundle_in_bare_root`: builds the offline bundle (jobs/bundle.sh),
# then runs it inside a bare Debian 12 root (debootstrap --variant=minbase
# bookworm) as on a bare GPU node: the host's CUDA toolkit bind-mounted
# read-only at /usr/local/cuda, NCCL reached through NCCL_HOME pointing at a
# wheel-like folder (lib/libnccl.so.2 linked to the toolkit's), the bundle
# unpacked elsewhere than it was built and mounted read-only. Inside, a second
# case hides the toolkit and reaches cudart, cuBLAS and NCCL only through the
# CUDA wheels' site-packages layout (nvidia/cu13/lib, nvidia/nccl/lib), which
# the launcher finds by glob: the root has no python3. What runs inside is
# inside_bare_root.sh.
#
# Usage: run_in_bare_root.sh SOURCE_DIR BUILD_DIR WORK_DIR
# The root is made once and cached in $TPB_BARE_ROOT_CACHE (default
# /var/cache/tpbench/bookworm-minbase, about 210 MB): the cold run downloads
# it from $TPB_DEBIAN_MIRROR (default http://deb.debian.org/debian), later
# runs reuse it. Where the root cannot be made or entered (not root, no
# debootstrap, no network, no mount namespaces) the test skips with exit code
# 77, unless TPB_REQUIRE_BUNDLE_TEST=1, which turns the skip into a failure.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: run_in_bare_root.sh SOURCE_DIR BUILD_DIR WORK_DIR" >&2
  exit 2
fi
source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
mkdir -p "$3"
work=$(cd "$3" && pwd)
cache=${TPB_BARE_ROOT_CACHE:-/var/cache/tpbench/bookworm-minbase}
mirror=${TPB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
started=$(date +%s)
progress() { echo "[bundle test +$(($(date +%s) - started))s] $*"; }
skip() {
  if [ "${TPB_REQUIRE_BUNDLE_TEST:-0}" = 1 ]; then
    echo "FAILED: cannot run the bare-root test: $* (TPB_REQUIRE_BUNDLE_TEST=1 forbids skipping it)" >&2
    exit 1
  fi
  echo "SKIPPED: cannot run the bare-root test: $*"
  exit 77
}

# --- can a root be made and entered here? -------------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (chroot, mounts)"
unshare --mount --propagation private true 2>/dev/null || skip "no mount namespace (unshare --mount failed)"
toolkit=$(readlink -f /usr/local/cuda 2>/dev/null || true)
if [ -z "$toolkit" ] || [ ! -d "$toolkit" ]; then skip "no CUDA toolkit at /usr/local/cuda to mount"; fi
nccl_lib=""
for dir in "$toolkit/lib64" "$toolkit/lib" "$toolkit/targets/x86_64-linux/lib"; do
  if [ -e "$dir/libnccl.so.2" ]; then
    nccl_lib=${dir#"$toolkit"}/libnccl.so.2
    break
  fi
done
[ -n "$nccl_lib" ] || skip "the CUDA toolkit at $toolkit holds no libnccl.so.2"

# --- the cached root --------------------------------------------------------------------------------
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9  # one maker at a time; the others wait and reuse it
if [ ! -e "$cache/.tpbench-root-complete" ]; then
  command -v debootstrap >/dev/null || skip "debootstrap not found (jobs/setup.sh installs it)"
  progress "making the bare root (cold, once): debootstrap --variant=minbase bookworm $cache"
  rm -rf "$cache.partial"
  if ! debootstrap --variant=minbase bookworm "$cache.partial" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -n 5 "$work/debootstrap.log"
    rm -rf "$cache.partial"
    skip "debootstrap failed (see $work/debootstrap.log)"
  fi
  mkdir -p "$cache.partial/usr/local/cuda" "$cache.partial/opt/tpbench" "$cache.partial/opt/nccl-wheel"
  touch "$cache.partial/.tpbench-root-complete"
  rm -rf "$cache"
  mv "$cache.partial" "$cache"
else
  progress "reusing the bare root in $cache"
fi
flock -u 9

# --- the bundle, unpacked away from where it was built ------------------------------------------------
progress "jobs/bundle.sh $work/out"
TPB_BUILD_DIR=$build_dir TPB_BUILD_JOBS=${TPB_BUILD_JOBS:-2} "$source_dir/jobs/bundle.sh" "$work/out"
rm -rf "$work/unpacked" "$work/nccl-wheel"
mkdir -p "$work/unpacked" "$work/nccl-wheel/lib"
tar -C "$work/unpacked" -xzf "$work/out/tpbench-bundle.tar.gz"
# A wheel-like NCCL folder: the link resolves inside the root, where the toolkit is mounted.
ln -s "/usr/local/cuda$nccl_lib" "$work/nccl-wheel/lib/libnccl.so.2"

# --- run it inside the root, in a private mount namespace (the mounts vanish with it) -------------
progress "running the bundle inside the bare root"
export CACHE_ROOT=$cache TOOLKIT=$toolkit UNPACKED=$work/unpacked WHEEL=$work/nccl-wheel
export INSIDE=$source_dir/tests/bundle/inside_bare_root.sh
# shellcheck disable=SC2016  # expanded by the inner shell, from the exported variables
unshare --mount --propagation private -- bash -euo pipefail -c '
  r=$CACHE_ROOT
  mount -t proc proc "$r/proc"
  mount --rbind /dev "$r/dev"
  mount --rbind /sys "$r/sys"
  mount -t tmpfs tmpfs "$r/tmp"
  ro_bind() { mount --bind "$1" "$2"; mount -o remount,bind,ro "$2"; }
  ro_bind "$TOOLKIT" "$r/usr/local/cuda"
  ro_bind "$UNPACKED" "$r/opt/tpbench"
  ro_bind "$WHEEL" "$r/opt/nccl-wheel"
  cp "$INSIDE" "$r/tmp/inside_bare_root.sh"
  exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    NCCL_HOME=/opt/nccl-wheel OMP_NUM_THREADS=1 \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    /bin/bash /tmp/inside_bare_root.sh
'
progress "passed"
