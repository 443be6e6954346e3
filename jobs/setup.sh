#!/usr/bin/env bash
# Installs what tpbench needs on Debian 12 from apt. Idempotent and quiet
# unless something fails. Never installs CUDA: the build uses nvcc when it exists
# (on PATH or at /usr/local/cuda/bin/nvcc).
#   jobs/setup.sh             everything the tests need (what CI runs)
#   jobs/setup.sh quickstart  only what jobs/quickstart.sh builds and runs
set -euo pipefail
profile=${1:-full}

quickstart=(
  build-essential cmake ninja-build git pkg-config # toolchain
  libopenmpi-dev openmpi-bin                      # MPI (mpirun, mpicc)
  libhdf5-dev hdf5-tools                          # results files, h5dump
  libopenblas-openmp-dev                          # BLAS, OpenMP build (shares the OpenMP pool)
  nlohmann-json3-dev libcli11-dev libfmt-dev      # config files, CLI, formatting
  libssl-dev                                      # SHA-256 (OpenSSL EVP) sealing pre-registrations
  libboost-dev                                    # Student's t quantiles (Boost.Math) of a campaign's pooled verdict
  libgtest-dev                                    # found by every configure (the suite is a target)
  python3-h5py python3-matplotlib                 # report plots, via /usr/bin/python3
)
tests=(
  slurm-wlm munge                                 # a real local Slurm for the job-script tests
  iproute2                                        # network namespaces for the two-host test
  clang libclang-rt-14-dev                        # libFuzzer and sanitizer runtimes
  libomp-14-dev                                   # OpenMP for the clang (fuzz) build
  patchelf debootstrap                            # offline bundle (jobs/bundle.sh) and its bare-root test
  libblis-dev libdnnl-dev libxsmm-dev             # what jobs/bench_cpu_gemm.sh compares the CPU kernel with
)
case "$profile" in
  full) packages=("${quickstart[@]}" "${tests[@]}") ;;
  quickstart) packages=("${quickstart[@]}") ;;
  *) echo "jobs/setup.sh: unknown profile '$profile' (full or quickstart)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { $SUDO apt-get update -qq && \
       DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  echo "jobs/setup.sh: apt-get failed installing: ${missing[*]}" >&2
  tail -n 30 "$log" >&2
  exit 1
fi
echo "jobs/setup.sh: installed ${missing[*]}"
