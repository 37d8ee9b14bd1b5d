#!/usr/bin/env bash
# konform check's progress line: in a log (stderr not a terminal) full lines
# with the op count, the time so far and an ETA, and never a '\r'; on a
# terminal one line redrawn with '\r' and erased before each result; none
# at all with --quiet.
#   usage: progress_test.sh KONFORM HANG_LIBRARY
# HANG_LIBRARY: a plugin whose elementwise_add hangs at one case (tests/hostile), so that
# an op runs long enough for a log line.
set -u
konform=${1:?usage: progress_test.sh KONFORM HANG_LIBRARY}
hang=${2:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "$0")/expect.sh"

# A log: elementwise_rmsnorm (not exported, done at once), then elementwise_add, hung for 7 s.
"$konform" check --backend "$hang" --op elementwise_rmsnorm,elementwise_add --cases 60 --no-properties --timeout 7 \
  >"$tmp/log.out" 2>"$tmp/log.err"
line="^  elementwise_add on $hang: case [0-9]+/60, [0-9]+ s  \\[2/2 ops, [0-9]+ s elapsed, ETA [0-9]+ s\\]\$"
if ! grep -Eq "$line" "$tmp/log.err"; then
  fail "no progress line /$line/ in the log:"
  sed 's/^/    /' "$tmp/log.err" | head -10
elif grep -q $'\r' "$tmp/log.out" "$tmp/log.err"; then
  fail "a '\\r' in the log"
else
  echo "ok:   a log gets full progress lines with the op count and an ETA, and no '\\r'"
fi

# A terminal (script(1) gives konform one): the line is redrawn and erased.
if ! script -qfec true /dev/null >/dev/null 2>&1; then
  echo "ok:   (no script(1) here: the terminal checks are skipped)"
else
  on_terminal() { script -qfec "$(printf '%q ' "$konform" "$@")" /dev/null 2>&1; }
  out=$(on_terminal check --backend scalar --op elementwise_add,elementwise_argmax --cases 30 --no-properties --jobs 1)
  if grep -Eq $'\r  elementwise_add on scalar: [^\r]*\\[1/2 ops, [0-9]+ s elapsed, ETA unknown\\]' <<<"$out" &&
    grep -Eq $'\r +\r''PASS  elementwise_add ' <<<"$out" && grep -Eq $'\r +\r''PASS  elementwise_argmax ' <<<"$out"; then
    echo "ok:   a terminal gets one line, redrawn with '\\r' and erased before each result"
  else
    fail "the terminal's output is not a redrawn line erased before each result:"
    cat -A <<<"$out" | sed 's/^/    /' | head -10
  fi
  out=$(on_terminal check --backend scalar --op elementwise_add,elementwise_argmax --cases 30 --no-properties --quiet)
  if [[ $out == $'2 passed, 0 failed, 0 unsupported\r' ]]; then
    echo "ok:   --quiet on a terminal prints the summary line alone"
  else
    fail "--quiet on a terminal printed more than the summary:"
    cat -A <<<"$out" | sed 's/^/    /' | head -10
  fi
fi

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all progress checks passed"
