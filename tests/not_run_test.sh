#!/usr/bin/env bash
# A backend that cannot run here (its tl_backend_unavailable gives a reason,
# tinyllm/backend.h; `cuda` without a GPU) runs nothing: every op it exports
# is NOT RUN with the reason, the run exits 3, never 0, and the report, JUnit
# and HTML say not run. A probe that returns NULL changes nothing.
#   usage: not_run_test.sh KONFORM UNAVAILABLE_SO AVAILABLE_SO CC SOURCE_DIR PYTHON FUZZ_TARGET HAVE_CUDA
set -u

konform=${1:?usage: not_run_test.sh KONFORM UNAVAILABLE_SO AVAILABLE_SO CC SOURCE_DIR PYTHON FUZZ_TARGET HAVE_CUDA}
unavailable=${2:?}
available=${3:?}
cc=${4:?}
src=${5:?}
python=${6:?}
fuzz_target=${7:?}
have_cuda=${8:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

source "$(dirname "$0")/expect.sh"

# The report validates (the schema, by python3 with jsonschema when there is
# one; konform's own validator through render) and its views say not run.
check_views() {  # check_views REPORT: REPORT.xml and REPORT.html beside it
  local report=$1
  expect 0 '' -- render "$report" --junit "$report.xml" --html "$report.html"
  if "$python" -c 'import jsonschema' 2>/dev/null; then
    run_expect 0 'valid .*verdict not_run' -- \
      "$python" "$src/tests/validate_report.py" --schema "$src/reports/report.schema.json" --expect-verdict not_run "$report"
    run_expect 0 '^1 passed, 0 failed$' -- "$python" "$src/tests/check_views.py" "$report" "$report.xml" "$report.html"
  else
    echo "note: no python3 with jsonschema; the schema check of $report is left to konform render"
  fi
  run_expect 0 '<skipped message="not run: ' -- cat "$report.xml"
  run_expect 0 '>not run</td>' -- cat "$report.html"
}

# A plugin that says why it cannot run: nothing called (its elementwise_add aborts).
expect 3 'NOT RUN +elementwise_add +[^ ]*unavailable[^ ]* +test plugin: no device here' -- \
  check --backend "$unavailable" --op elementwise_add --report "$tmp/plugin.json"
expect 3 '^0 passed, 0 failed, 0 unsupported, 1 not run$' -- check --backend "$unavailable" --op elementwise_add
run_expect 0 '"verdict": "not_run"' -- cat "$tmp/plugin.json"
run_expect 0 '"reason": "test plugin: no device here"' -- cat "$tmp/plugin.json"
check_views "$tmp/plugin.json"
# konform's own validator (render) holds a not_run result to its reason, and
# only it: broken copies of the report are refused.
edit_report() {  # edit_report OUT PYTHON_STATEMENT: r is the report
  "$python" -c 'import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))' "$tmp/plugin.json" "$1" "$2"
}
edit_report "$tmp/no_reason.json" 'del r["results"][0]["reason"]'
expect 2 "results\[0\]: missing 'reason' \(a not_run result says why\)" -- \
  render "$tmp/no_reason.json" --junit "$tmp/no_reason.xml"
edit_report "$tmp/reason_on_pass.json" 'r["results"][0]["verdict"] = "pass"'
expect 2 "results\[0\].reason: only a not_run or mistrusted result has a reason" -- \
  render "$tmp/reason_on_pass.json" --junit "$tmp/reason_on_pass.xml"
edit_report "$tmp/verdict.json" 'r["summary"]["verdict"] = "skipped"'
expect 2 "summary.verdict: 'skipped' is not one of pass, fail, mistrusted, not_run" -- \
  render "$tmp/verdict.json" --html "$tmp/verdict.html"

# Ops it does not export stay unsupported; the run still exits 3.
expect 3 'SKIP +elementwise_rmsnorm .*unsupported' -- check --backend "$unavailable" --op elementwise_add,elementwise_rmsnorm --cases 2
# Beside a backend that runs: that one passes, the run still is not a pass.
expect 3 '^1 passed, 0 failed, 0 unsupported, 1 not run$' -- \
  check --backend scalar --backend "$unavailable" --op elementwise_add --cases 5 --no-properties
# A finding outranks what was not run: exit 1.
expect 1 '^0 passed, 1 failed, 0 unsupported, 1 not run$' -- \
  check --backend scalar --backend "$unavailable" --op elementwise_add --cases 5 --no-properties \
  --tolerances "$src/tests/data/add_limit_zero.tsv"
# repro and the fuzz targets refuse it the same way.
expect 3 'NOT RUN +elementwise_add on .*: test plugin: no device here' -- \
  repro "$src/fixtures/cases/elementwise_add-in_place.json" --backend "$unavailable"
run_expect 2 'cannot run here: test plugin: no device here' -- \
  env KONFORM_FUZZ_BACKEND="$unavailable" "$fuzz_target" "$tmp"

# A probe that returns NULL: checked, and passing, as any plugin.
expect 0 '^1 passed, 0 failed, [0-9]+ unsupported$' -- check --backend "$available" --cases 20
expect 0 'PASS +elementwise_add on ' -- repro "$src/fixtures/cases/elementwise_add-in_place.json" --backend "$available"

# A probe that crashes is the finding library_loads, as a crashing constructor is.
printf '%s\n' '#include <stdlib.h>
const char *tl_backend_unavailable(void) { abort(); }
void tl_add_f32(void) {}' >"$tmp/probe_abort.c"
if "$cc" -shared -fPIC "$tmp/probe_abort.c" -o "$tmp/probe_abort.so"; then
  expect 1 "library_loads: .*probe_abort.so crashed in tl_backend_unavailable \(signal 6" -- \
    check --backend "$tmp/probe_abort.so" --op elementwise_add
else
  echo "FAIL: cannot build probe_abort.so"
  failures=$((failures + 1))
fi

# The built-in cuda backend: NOT RUN without a device (here, in CI), and
# refused with a clear message by a konform built without it.
if [[ $have_cuda == ON ]]; then
  out=$("$konform" check --backend cuda --op elementwise_add --cases 5 2>&1)
  if grep -q '^NOT RUN' <<<"$out"; then
    expect 3 'NOT RUN +elementwise_add +cuda +(no CUDA device|the CUDA device)' -- \
      check --backend cuda --op elementwise_add --report "$tmp/cuda.json"
    check_views "$tmp/cuda.json"
    expect 3 'NOT RUN +elementwise_add on cuda: ' -- repro "$src/fixtures/cases/elementwise_add-in_place.json" --backend cuda
  else
    echo "note: a CUDA device is usable here; the ctest label cuda checks it"
    expect 0 'PASS +elementwise_add +cuda' -- check --backend cuda --op elementwise_add --cases 5
  fi
else
  expect 2 "backend 'cuda' is not built into this konform" -- check --backend cuda --op elementwise_add
fi

echo "$failures failure(s)"
[[ $failures -eq 0 ]]
