#!/usr/bin/env bash
# KONFORM_CUDA where nvcc cannot be found (CUDACXX and the default path point
# nowhere): OFF and AUTO configure without the cuda backend, ON stops with a
# message. The configure logic only; building without CUDA is CI's own job.
#   usage: cmake_cuda_test.sh CMAKE SOURCE_DIR
set -u
cmake=${1:?usage: cmake_cuda_test.sh CMAKE SOURCE_DIR}
src=${2:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "$0")/expect.sh"

configure() {  # configure MODE: a fresh build directory each time
  rm -rf "$tmp/b"
  env CUDACXX=/nonexistent/nvcc "$cmake" -S "$src/tests/cmake_cuda" -B "$tmp/b" -DKONFORM_SOURCE_DIR="$src" \
    -DKONFORM_CUDA="$1" -DKONFORM_CUDA_DEFAULT_NVCC=/nonexistent/nvcc
}
run_expect 0 'KONFORM_HAVE_CUDA=OFF' -- configure OFF
run_expect 0 'the cuda backend is not built \(no nvcc' -- configure AUTO
run_expect 1 'KONFORM_CUDA=ON but CUDA cannot be enabled' -- configure ON
run_expect 1 "KONFORM_CUDA='maybe': expected AUTO, ON or OFF" -- configure maybe
echo "$failures failure(s)"
[[ $failures -eq 0 ]]
