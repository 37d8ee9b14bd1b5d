#!/usr/bin/env bash
# The hostile plugins (tests/hostile/manifest.tsv): each run of konform
# check on one ends with its report and the finding the manifest names, at
# the case that caused it, and the printed replay line gives that finding
# again; konform never exits 2 for a plugin's behaviour (a library whose
# constructor hangs is the finding library_loads, within --timeout). Then konform is killed (SIGTERM, SIGKILL) while a child hangs:
# no process and no temporary report may be left behind.
#   usage: hostile_test.sh KONFORM PLUGIN_DIR MANIFEST
set -u
konform=${1:?usage: hostile_test.sh KONFORM PLUGIN_DIR MANIFEST}
dir=${2:?}
manifest=${3:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# The same arguments for every run: add only, 60 cases (the trigger, n = 47,
# is among them), short deadlines.
args=(--op add --cases 60 --no-properties --timeout 3)

while IFS=$'\t' read -r name define check where status; do
  [[ -z $name || $name == \#* ]] && continue
  lib="$dir/libkonform_hostile_$name.so"
  report="$tmp/$name.json"
  "$konform" check --backend "$lib" "${args[@]}" --report "$report" >"$tmp/$name.out" 2>"$tmp/$name.err"
  rc=$?
  if [[ $rc -ne $status ]]; then
    fail "$name: exit status $rc, expected $status"
    sed 's/^/    /' "$tmp/$name.out" "$tmp/$name.err" | head -20
    continue
  fi
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$report" 2>/dev/null || fail "$name: no valid report"
  if [[ $check == - ]]; then
    # Only relayed: nothing the plugin printed passes for konform's own lines.
    grep -q "^PASS  add *scalar" "$tmp/$name.out" && fail "$name: the plugin's fake line reached standard output"
    grep -q "| add on .*PASS  add" "$tmp/$name.err" || fail "$name: the plugin's output was not relayed, marked"
    echo "ok:   $name -> $rc"
    continue
  fi
  # The finding, its case and its replay line (the lines under "      check:").
  block=$(awk -v c="      $check:" 'index($0, c) == 1 {f = 1; print; next} f && /^        / {print; next} {f = 0}' "$tmp/$name.out")
  if [[ -z $block ]]; then
    fail "$name: no $check finding"
    sed 's/^/    /' "$tmp/$name.out" | head -20
    continue
  fi
  if [[ $check == library_loads ]] && ! grep -q "did not finish loading within 3 s" <<<"$block"; then
    fail "$name: the load deadline does not follow --timeout 3:"
    echo "$block" | sed 's/^/    /'
    continue
  fi
  if [[ $where == at_trigger ]] && ! grep -Eq '^        case [0-9]+: n=47( |$)' <<<"$block"; then
    fail "$name: $check is not at the case with n = 47:"
    echo "$block" | sed 's/^/    /'
    continue
  fi
  replay=$(sed -n 's/^        replay: [^ ]* //p' <<<"$block" | sed 's/   (.*//')  # the words after konform's path
  if [[ $where == at_trigger ]]; then
    # shellcheck disable=SC2086 # the replay line is words konform printed
    out=$("$konform" $replay --timeout 3 2>&1)
    grep -q "      $check:" <<<"$out" || fail "$name: the replay 'konform $replay' does not give $check"
  fi
  echo "ok:   $name -> $rc, $check${replay:+, replayed}"
done <"$manifest"

# Killed while a child hangs: its whole process group goes with konform.
lib="$dir/libkonform_hostile_hang_call.so"
for sig in TERM KILL; do
  "$konform" check --backend "$lib" --op add --cases 60 --no-properties --timeout 60 --report "$tmp/killed.json" \
    >/dev/null 2>&1 &
  pid=$!
  sleep 4  # the case with n = 47 comes within a second; its deadline is 60 s
  kill -"$sig" "$pid"
  wait "$pid" 2>/dev/null
  sleep 1
  if pgrep -f "$lib" >/dev/null; then
    fail "SIG$sig: processes left behind: $(pgrep -af "$lib" | head -3)"
    pgrep -f "$lib" | xargs -r kill -KILL
  else
    echo "ok:   SIG$sig of konform during a hang leaves no process"
  fi
  [[ -e $tmp/killed.json ]] && fail "SIG$sig: a report was written by a killed run"
  if [[ $sig == TERM ]] && compgen -G "$tmp/killed.json.konform-*" >/dev/null; then
    fail "SIGTERM: the temporary report was left behind"
  fi
  rm -f "$tmp"/killed.json*
done

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all hostile plugins handled"
