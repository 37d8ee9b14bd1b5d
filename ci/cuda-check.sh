#!/usr/bin/env bash
# The cuda backend on a machine with a GPU (docs/cuda.md): builds konform with
# KONFORM_CUDA=ON into build-cuda/ (nvcc required; only what the check needs),
# then checks the cuda backend against the oracle, writing
# reports/cuda.json (.xml, .html beside it), and runs the ctests cuda.*
# Sized for a 10-minute device slot: on 16 cores the build takes a few
# minutes from cold; the check itself is unmeasured (expected: a minute or two).
# Exit: konform's status (0 conforms, 1 a finding, 3 NOT RUN: no usable
# device), or ctest's when the check conformed.
#   usage: bash ci/cuda-check.sh [extra konform check options, e.g. --cases 1000]
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
nvcc_args=()
if ! command -v nvcc >/dev/null && [[ -z ${CUDACXX:-} && -x /usr/local/cuda/bin/nvcc ]]; then
  nvcc_args=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv

set -e
cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKONFORM_CUDA=ON -DKONFORM_BENCH=OFF \
  -DKONFORM_MUTANTS=OFF "${nvcc_args[@]}"
cmake --build build-cuda -j"$jobs" --target konform tl_cuda konform_cuda_symbols_test konform_cuda_refusals_test \
  konform_cuda_emulated
set +e

mkdir -p reports
# Every op of the catalog: those libtl_cuda does not export are SKIP
# (unsupported), so the list of its ops lives in its sources alone (TL_CUDA_EXPORT).
./build-cuda/cli/konform check --backend cuda \
  --report reports/cuda.json --junit reports/cuda.xml --html reports/cuda.html "$@"
status=$?
echo "konform check --backend cuda: exit $status (0 conforms, 1 findings, 3 not run)"
# cuda.symbols, cuda.check (the whole catalog on cuda; skipped, exit 77, without a device),
# cuda.refusals and cuda.refusals_emulated; the label's plugin.cuda_emulated* need no GPU and
# are left to ci/test.sh.
ctest --test-dir build-cuda --output-on-failure -R '^cuda\.'
ctest_status=$?
[[ $status -ne 0 ]] && exit "$status"
exit "$ctest_status"
