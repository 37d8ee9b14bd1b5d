#!/usr/bin/env bash
# Configures and builds konform into build/ (Release, Ninja, ccache), the
# benchmarks included. Extra arguments go to cmake's configure step, after
# these (ci/test.sh turns the benchmarks off: no test runs them).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKONFORM_BENCH=ON "$@"
cmake --build build -j"$(nproc)"
