#!/usr/bin/env bash
# The whole test suite, each test once: the Release build runs what a user
# runs (konform check of mutants, plugins, peers, hostile libraries, reports,
# install, the properties on scalar and on the dispatched SIMD target), and
# build-asan/ runs the unit, oracle, property (every SIMD target),
# fuzz-smoke and e2e tests under ASan and UBSan. The Release build has the
# cuda backend when nvcc is there (its tests say SKIPPED without a GPU); the
# sanitizer build never does: nvcc takes none of those flags.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/format-check.sh  # .clang-format: seconds, before anything is built
# Benchmarks are built by ci/build.sh, run by hand (docs/benchmarks.md). The
# unit, oracle and fuzz-smoke programs run in the sanitizer build below, so
# this build leaves them out (KONFORM_UNIT_TESTS=OFF: nine 50-digit oracle
# tests and the fuzz targets not compiled twice).
bash ci/build.sh -DKONFORM_BENCH=OFF -DKONFORM_UNIT_TESTS=OFF
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE "unit|oracle|fuzz-smoke"

# AVX3 and AVX2 (masked tails), SSE4 (tails through a stack buffer) and the
# scalar fallback exercise every code path under the sanitizers; SSSE3 adds
# build time and no path of its own. -O1 -g1 (line tables, the frames of a
# sanitizer's report keep file:line): -O2 -g took 1393 s to build from cold
# on 2 cores, this 745 s, and the tests ran no slower (311 s, 276 s).
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKONFORM_SANITIZE=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS=-DHWY_DISABLED_TARGETS=HWY_SSSE3" \
  -DKONFORM_BENCH=OFF -DKONFORM_MUTANTS=OFF -DKONFORM_CUDA=OFF
cmake --build build-asan -j"$(nproc)"
# intercept_tls_get_addr=0: the sanitizer runtime's record of dynamic TLS goes stale
# when backend libraries with thread_local state are loaded and unloaded many times
# (simd:all), and LeakSanitizer's tracer then crashes on it at exit ("DTLS 6 at
# 0x3bc9e-0x28003cda0", signal 11, no leak reported). Leaks are still detected;
# only pointers held in a dlopen'd library's TLS are not scanned as roots.
export ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Under the sanitizers: the unit and oracle tests, every op's properties on
# scalar and every SIMD target, and the fuzz corpora replayed through every
# op target (the edge shapes of each op, unaligned buffers included), and the
# end-to-end decoder.
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -L "unit|oracle|property|fuzz-smoke|e2e"
