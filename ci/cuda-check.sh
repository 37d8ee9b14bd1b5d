#!/usr/bin/env bash
# The one command for a machine with a GPU (docs/cuda.md): runs a bundle's
# check.sh (ci/cuda-bundle-check.sh: unit tests, the whole catalog on cuda and
# cuda:device, compute-sanitizer, the benchmarks, inside 8 minutes), writing
# into reports/ (REPORT_DIR) at the root of this tree. Which bundle:
#   --bundle DIR      that one;
#   else, in a full build environment (nvcc, cmake, ninja and the Debian
#   packages the build needs, ci/install-deps.sh): this tree built into
#   KONFORM_BUILD_DIR (default build-cuda/, -DKONFORM_CUDA=ON, benchmarks on)
#   and packed into its cuda-bundle/ by ci/cuda-bundle.sh, so that what runs
#   is what this tree holds;
#   else the bundle found next to this script: build/cuda-bundle,
#   build-cuda/cuda-bundle or cuda-bundle at the root of the tree (a GPU
#   machine with none of the Debian libraries: pack the bundle elsewhere with
#   bash ci/cuda-bundle.sh and copy it there).
# Exit: check.sh's (0 everything ran and conformed, 1 a finding, 2 a command
# refused, 3 something not run: 3 alone when there is no usable device), or 2
# when there is no bundle and none can be built here.
#   usage: bash ci/cuda-check.sh [--bundle DIR] [konform check options, e.g. --cases 100]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=
if [[ ${1:-} == --bundle ]]; then
  bundle=${2:?usage: cuda-check.sh --bundle DIR [konform check options]}
  shift 2
elif [[ ${1:-} == --bundle=* ]]; then
  bundle=${1#--bundle=}
  shift
fi
export REPORT_DIR=${REPORT_DIR:-$root/reports}

# nvcc, cmake, ninja and the packages whose CMake files the configure step
# requires (CMakeLists.txt's find_package calls).
full_build_environment() {
  local nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  [[ -x $nvcc ]] && command -v cmake >/dev/null && command -v ninja >/dev/null && command -v dpkg-query >/dev/null ||
    return 1
  local p
  for p in libhwy-dev nlohmann-json3-dev libboost-dev libgtest-dev librapidcheck-dev libbenchmark-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || return 1
  done
}

if [[ -z $bundle ]] && full_build_environment; then
  b=$(realpath -m "${KONFORM_BUILD_DIR:-$root/build-cuda}")
  nvcc_args=()
  if ! command -v nvcc >/dev/null && [[ -z ${CUDACXX:-} && -x /usr/local/cuda/bin/nvcc ]]; then
    nvcc_args=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  fi
  echo "cuda-check: a full build environment: building $b and its bundle"
  mkdir -p "$b"
  if ! cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKONFORM_CUDA=ON -DKONFORM_BENCH=ON \
    -DKONFORM_MUTANTS=OFF "${nvcc_args[@]}" >"$b/configure.log" 2>&1; then
    tail -20 "$b/configure.log"
    echo "cuda-check: configuring $b failed (log: $b/configure.log)" >&2
    exit 2
  fi
  if ! KONFORM_BUILD_DIR=$b bash "$root/ci/cuda-bundle.sh" "$b/cuda-bundle"; then
    echo "cuda-check: building or packing the bundle failed" >&2
    exit 2
  fi
  bundle=$b/cuda-bundle
elif [[ -z $bundle ]]; then
  for d in "$root/build/cuda-bundle" "$root/build-cuda/cuda-bundle" "$root/cuda-bundle"; do
    if [[ -x $d/check.sh ]]; then
      bundle=$d
      break
    fi
  done
  if [[ -z $bundle ]]; then
    echo "cuda-check: no bundle (build/cuda-bundle, build-cuda/cuda-bundle, cuda-bundle) and no build environment" \
      "here (nvcc, cmake, ninja and ci/install-deps.sh's packages): pack one with bash ci/cuda-bundle.sh where" \
      "konform builds, copy it here, and run bash ci/cuda-check.sh --bundle DIR" >&2
    exit 2
  fi
fi
if [[ ! -x $bundle/check.sh ]]; then
  echo "cuda-check: $bundle is not a bundle (no check.sh)" >&2
  exit 2
fi
echo "cuda-check: running $bundle/check.sh ($(sed -n 's/^commit: //p' "$bundle/BUILD-INFO" 2>/dev/null || echo "no BUILD-INFO"))"
exec "$bundle/check.sh" "$@"
