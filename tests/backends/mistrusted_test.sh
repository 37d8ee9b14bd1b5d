#!/usr/bin/env bash
# MISTRUSTED: an Argmax that serves only the calls whose every answer is index
# 0 (zero_answers_only.cpp) leaves konform nothing but all-zero expected
# outputs to judge. It must be mistrusted in every output -- the console line
# and summary (exit 1), the JSON report (valid against the schema), JUnit,
# SARIF, HTML -- and `konform diff` from the scalar Argmax's passing report
# must call it a regression. The scalar Argmax on the same cases passes, and
# replaying one case (--case N) is no sweep to mistrust.
#   usage: mistrusted_test.sh KONFORM ZERO_ANSWERS_ONLY PYTHON VALIDATE SCHEMA
set -u
konform=${1:?usage: mistrusted_test.sh KONFORM ZERO_ANSWERS_ONLY PYTHON VALIDATE SCHEMA}
plugin=${2:?}
python=${3:?}
validate=${4:?}
schema=${5:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "$0")/../expect.sh"

run=(check --op Argmax --cases 60 --no-properties)
expect 1 'MISTRUSTED +Argmax .*60 cases \([1-9][0-9]* unsupported\)' -- "${run[@]}" --backend "$plugin" \
  --report "$tmp/m.json" --junit "$tmp/m.xml" --sarif "$tmp/m.sarif" --html "$tmp/m.html"
expect 1 'MISTRUSTED matches_oracle: every expected output value over [1-9][0-9]* judged cases \([0-9]+ elements\) is zero: a kernel writing zeros would pass' -- \
  "${run[@]}" --backend "$plugin"
expect 1 '^0 passed, 0 failed, 0 unsupported, 1 mistrusted$' -- "${run[@]}" --backend "$plugin"
expect 1 '^MISTRUSTED +Argmax' -- "${run[@]}" --backend "$plugin" --quiet
# The negative: a backend that computes every answer is trusted on the same cases.
expect 0 '^1 passed, 0 failed, 0 unsupported$' -- "${run[@]}" --backend scalar --report "$tmp/s.json"
# One case replayed is no sweep: judged on its own, it passes.
expect 0 '^PASS +Argmax' -- check --op Argmax --case 0 --no-properties --backend "$plugin"

# The report: the verdict, its reason and the check's, counted in the summary.
run_expect 0 '^mistrusted every expected output value' -- "$python" -c 'import json, sys
j = json.load(open(sys.argv[1]))
r = j["results"][0]
c = [c for c in r["checks"] if c["name"] == "matches_oracle"][0]
assert c["verdict"] == "mistrusted" and c["reason"] == r["reason"], c
assert r["findings"] == [], r["findings"]
s = j["summary"]
assert (s["passed"], s["failed"], s["mistrusted"], s["verdict"]) == (0, 0, 1, "mistrusted"), s
print(r["verdict"], r["reason"])' "$tmp/m.json"
if "$python" -c 'import jsonschema' 2>/dev/null; then
  run_expect 0 'verdict mistrusted' -- "$python" "$validate" --schema "$schema" --expect-verdict mistrusted "$tmp/m.json"
fi
# JUnit: a failure that says why; SARIF: a warning of the rule mistrusted; HTML: the verdict and its section.
run_expect 0 'failures="1"' -- cat "$tmp/m.xml"
run_expect 0 '<testcase [^>]*name="matches_oracle"[^>]*><failure type="mistrusted" message="matches_oracle is mistrusted: [^"]*">every expected output value' -- cat "$tmp/m.xml"
run_expect 0 '^mistrusted warning matches_oracle is mistrusted: every expected' -- "$python" -c 'import json, sys
rs = json.load(open(sys.argv[1]))["runs"][0]["results"]
assert len(rs) == 1, rs
print(rs[0]["ruleId"], rs[0]["level"], rs[0]["message"]["text"])' "$tmp/m.sarif"
run_expect 0 'data-verdict="mistrusted"' -- cat "$tmp/m.html"
run_expect 0 '<h2 id="mistrusted">Mistrusted</h2>' -- cat "$tmp/m.html"
run_expect 0 '<b>mistrusted</b>: 0 passed, 0 failed, 0 unsupported, 1 mistrusted' -- cat "$tmp/m.html"
# The same views rendered from the report.
expect 0 '' -- render "$tmp/m.json" --junit "$tmp/r.xml" --sarif "$tmp/r.sarif"
run_expect 0 '<failure type="mistrusted"' -- cat "$tmp/r.xml"

# diff: becoming mistrusted is a regression; staying so is not. The plugin
# loaded as `scalar` (KONFORM_SCALAR_LIBRARY), so that the two reports hold
# the same (backend, op) pair.
run_expect 1 '1 mistrusted' -- env KONFORM_SCALAR_LIBRARY="$plugin" "$konform" "${run[@]}" --backend scalar \
  --report "$tmp/as_scalar.json"
expect 1 'REGRESSED +newly_mistrusted +Argmax .*matches_oracle: check matches_oracle is mistrusted' -- \
  diff "$tmp/s.json" "$tmp/as_scalar.json"
expect 0 '0 regression\(s\)' -- diff "$tmp/as_scalar.json" "$tmp/as_scalar.json"
expect 0 'changed +fixed +Argmax .*no longer mistrusted' -- diff "$tmp/as_scalar.json" "$tmp/s.json"
# --baseline: the same gate inside check.
run_expect 1 'REGRESSED +newly_mistrusted' -- env KONFORM_SCALAR_LIBRARY="$plugin" "$konform" "${run[@]}" \
  --backend scalar --baseline "$tmp/s.json"
exit $((failures > 0))
