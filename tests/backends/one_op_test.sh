#!/usr/bin/env bash
# Libraries that export one op each pass that op: a property calling a
# companion op they lack (Dequantize for Quantize) is NOT RUN with the
# missing symbol named, never FAILED with "does not export".
#   usage: one_op_test.sh KONFORM OP=LIBRARY...
set -u
konform=${1:?usage: one_op_test.sh KONFORM OP=LIBRARY...}
shift
failures=0
source "$(dirname "$0")/../expect.sh"
for pair in "$@"; do
  op=${pair%%=*}
  lib=${pair#*=}
  out=$("$konform" check --backend "$lib" --op "$op" --cases 8 --property-runs 8 2>&1)
  rc=$?
  if [[ $rc -ne 0 ]] || ! grep -Eq "^1 passed, 0 failed, 0 unsupported" <<<"$out" ||
    grep -q 'does not export tl_' <<<"$(grep -v 'NOT RUN' <<<"$out")"; then
    echo "FAIL: $op from $lib exited $rc:"
    sed 's/^/    /' <<<"$out" | head -30
    failures=$((failures + 1))
    continue
  fi
  # Every NOT RUN names the symbol it needed.
  if grep 'NOT RUN' <<<"$out" | grep -vq 'needs tl_[a-z0-9_]*, which'; then
    echo "FAIL: $op: a property not run without the missing symbol named:"
    grep 'NOT RUN' <<<"$out" | sed 's/^/    /'
    failures=$((failures + 1))
    continue
  fi
  echo "ok:   $op alone: passed; $(grep -c 'NOT RUN' <<<"$out") companion properties not run"
  grep 'NOT RUN' <<<"$out" | sed 's/^/        /'
done
exit $((failures > 0))
