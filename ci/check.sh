#!/usr/bin/env bash
# The main job: builds konform and checks the built-in backends (scalar, every
# SIMD target this machine has, and cuda when nvcc built it and a GPU is
# usable here) against the oracle, writing the report.
#
# The cuda backend is asked for only where `nvidia-smi -L` lists a GPU; on any
# other machine one line says it was not run and why, and the exit status is
# that of the backends that ran (0 when they all conform). A backend that is
# asked for and cannot run still makes konform exit 3 (verdict not_run), never
# a pass: KONFORM_CUDA=always asks for cuda whatever this script finds.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "check.sh: building (ci/build.sh)" >&2
bash ci/build.sh >&2
mkdir -p reports
backends=(--backend scalar --backend simd:all)
if [[ -f build/impl/cuda/libtl_cuda.so ]]; then
  if [[ "${KONFORM_CUDA:-auto}" == always ]] || nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    backends+=(--backend cuda)
  else
    echo "check.sh: cuda not run: the cuda backend is built, but no usable GPU is here" \
         "(nvidia-smi lists none); KONFORM_CUDA=always asks for it anyway" >&2
  fi
fi
exec ./build/cli/konform check "${backends[@]}" --report reports/conformance.json "$@"
