#!/usr/bin/env bash
# The main job: builds konform and checks the built-in backends (scalar, every
# SIMD target this machine has, and cuda when nvcc built it) against the
# oracle, writing the report. konform's exit status is kept: 3 means nothing
# failed but a backend could not run here (cuda without a GPU), and the
# report says so (verdict not_run); it is never turned into a pass.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh >/dev/null
mkdir -p reports
backends=(--backend scalar --backend simd:all)
if [[ -f build/impl/cuda/libtl_cuda.so ]]; then backends+=(--backend cuda); fi
status=0
./build/cli/konform check "${backends[@]}" --report reports/conformance.json "$@" || status=$?
if [[ $status -eq 3 ]]; then
  echo "check.sh: every backend that ran conforms; those marked NOT RUN above cannot run on this machine" \
       "(reports/conformance.json records them as not_run). Exit 3." >&2
fi
exit "$status"
