#!/usr/bin/env bash
# The whole test suite: the Release build's ctest (unit, oracle, property,
# mutant, plugin, report), then the kernels and properties again under ASan
# and UBSan in build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKONFORM_SANITIZE=ON \
  -DKONFORM_BENCH=OFF -DKONFORM_MUTANTS=OFF
cmake --build build-asan -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -L "unit|property|oracle"
