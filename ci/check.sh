#!/usr/bin/env bash
# The main job: builds konform and checks the built-in backends (scalar and
# every SIMD target this machine has) against the oracle, writing the report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh >/dev/null
mkdir -p reports
./build/cli/konform check --backend scalar --backend simd:all --report reports/conformance.json "$@"
