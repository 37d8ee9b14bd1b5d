#!/usr/bin/env bash
# Partial support (tinyllm/status.h): a Pool that returns TL_ERR_UNSUPPORTED
# for average pooling passes, its unsupported cases counted in the console
# line and the report; a Pool that supports nothing is unsupported, not passed.
#   usage: partial_support_test.sh KONFORM POOL_PARTIAL POOL_NONE PYTHON VALIDATE SCHEMA
set -u
konform=${1:?usage: partial_support_test.sh KONFORM POOL_PARTIAL POOL_NONE PYTHON VALIDATE SCHEMA}
partial=${2:?}
none=${3:?}
python=${4:?}
validate=${5:?}
schema=${6:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "$0")/../expect.sh"

expect 0 'PASS +Pool .* [0-9]+ cases \([1-9][0-9]* unsupported\)' -- check --backend "$partial" --op Pool --cases 60 \
  --property-runs 20 --report "$tmp/partial.json"
expect 0 '[1-9][0-9]* cases unsupported: "tl_pool_f32: average pooling is not implemented"' -- \
  check --backend "$partial" --op Pool --cases 60 --no-properties
expect 0 '^1 passed, 0 failed, 0 unsupported' -- check --backend "$partial" --op Pool --cases 60 --no-properties
expect 0 'unsupported: all [1-9][0-9]* valid cases returned TL_ERR_UNSUPPORTED \("tl_pool_f32: this library implements no pooling"\)' -- \
  check --backend "$none" --op Pool --cases 60 --report "$tmp/none.json"
expect 0 '^0 passed, 0 failed, 1 unsupported' -- check --backend "$none" --op Pool --cases 60
# The report holds the count (and the schema admits it).
run_expect 0 '"cases": [1-9]' -- "$python" -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(json.dumps(r["unsupported"]))' "$tmp/partial.json"
run_expect 0 '"unsupported"' -- "$python" -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["verdict"] == "unsupported", r["verdict"]
print(json.dumps(r["verdict"]))' "$tmp/none.json"
if "$python" -c 'import jsonschema' 2>/dev/null; then
  for f in partial none; do
    run_expect 0 '' -- "$python" "$validate" --schema "$schema" "$tmp/$f.json"
  done
fi
exit $((failures > 0))
