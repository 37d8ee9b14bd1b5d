#!/usr/bin/env bash
# The profiles on a correct kernel that sums serially (mutants/alternatives/
# alt_serial_sum.c): the default profile passes it and still measures and
# reports the strict profile; --profile strict fails it on the strict check.
# usage: profile_test.sh KONFORM PLUGIN default|strict
set -u
konform=$1 plugin=$2 mode=$3
ops=Softmax,LayerNorm,GroupNorm,InstanceNorm,AdaLN,AdaLN_Zero,FusedSkipNorm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "$0")/expect.sh"

if [[ $mode == default ]]; then
  # Exit 0, and the strict profile measured all the same: shown and in the report.
  expect 0 'strict [0-9.e+]+: fails' -- check --backend "$plugin" --op "$ops" --report "$tmp/r.json"
  grep -q '"strict_verdict": "fail"' "$tmp/r.json" || { echo "FAIL: no strict_verdict fail in the report"; failures=$((failures + 1)); }
  grep -q '"profile": "default"' "$tmp/r.json" || { echo "FAIL: the report does not name the default profile"; failures=$((failures + 1)); }
else
  expect 1 '\[strict profile\] matches_oracle_strict' -- check --backend "$plugin" --op "$ops" --profile strict
fi
exit $((failures > 0))
