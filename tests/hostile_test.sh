#!/usr/bin/env bash
# The hostile plugins (tests/hostile/manifest.tsv): each run of konform
# check on one ends with its report and the finding the manifest names, at
# the case that caused it, and the printed replay line gives that finding
# again; konform never exits 2 for a plugin's behaviour (a library whose
# constructor hangs is the finding library_loads, within --timeout). Then konform is killed (SIGTERM, SIGKILL) while a child hangs:
# no process and no temporary report may be left behind. With SUFFIX
# (:device) each plugin is checked as LIB:device, and the runs that kill
# konform are left to the host manifest.
#   usage: hostile_test.sh KONFORM PLUGIN_DIR MANIFEST [SUFFIX]
set -u
konform=${1:?usage: hostile_test.sh KONFORM PLUGIN_DIR MANIFEST [SUFFIX]}
dir=${2:?}
manifest=${3:?}
suffix=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# The same arguments for every run: elementwise_add only, 60 cases (the trigger, n = 47,
# is among them), short deadlines.
args=(--op elementwise_add --cases 60 --no-properties --timeout 3)

while IFS=$'\t' read -r name define check where status; do
  [[ -z $name || $name == \#* ]] && continue
  lib="$dir/libkonform_hostile_$name.so"
  report="$tmp/$name.json"
  "$konform" check --backend "$lib$suffix" "${args[@]}" --report "$report" >"$tmp/$name.out" 2>"$tmp/$name.err"
  rc=$?
  if [[ $rc -ne $status ]]; then
    fail "$name: exit status $rc, expected $status"
    sed 's/^/    /' "$tmp/$name.out" "$tmp/$name.err" | head -20
    continue
  fi
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$report" 2>/dev/null || fail "$name: no valid report"
  if [[ $check == pass ]]; then
    grep -q "^1 passed, 0 failed" "$tmp/$name.out" || fail "$name: did not pass"
    echo "ok:   $name -> $rc, passed"
    continue
  fi
  if [[ $check == - ]]; then
    # Only relayed: nothing the plugin printed passes for konform's own lines.
    grep -q "^PASS  elementwise_add *scalar" "$tmp/$name.out" && fail "$name: the plugin's fake line reached standard output"
    grep -q "| elementwise_add on .*PASS  elementwise_add" "$tmp/$name.err" || fail "$name: the plugin's output was not relayed, marked"
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

if [[ -n $suffix ]]; then
  [[ $failures -gt 0 ]] && echo "$failures failure(s)" && exit 1
  echo "all hostile plugins handled"
  exit 0
fi

# Killed while a child hangs: its whole process group goes with konform,
# whether the op runs in konform (--jobs 1) or in worker processes (two
# backends that hang at once, --jobs 2: both hangs are waited on together).
lib="$dir/libkonform_hostile_hang_call.so"
cp "$lib" "$tmp/hang_twin.so"
for jobs in 1 2; do
  backends=(--backend "$lib")
  [[ $jobs -eq 2 ]] && backends+=(--backend "$tmp/hang_twin.so")
  for sig in TERM KILL; do
    "$konform" check "${backends[@]}" --op elementwise_add --cases 60 --no-properties --timeout 60 --jobs "$jobs" \
      --report "$tmp/killed.json" >/dev/null 2>&1 &
    pid=$!
    sleep 4  # the case with n = 47 comes within a second; its deadline is 60 s
    if [[ $jobs -eq 2 ]]; then
      # konform, its two workers and each worker's child, all hanging now.
      running=$(pgrep -fc -- "--backend $tmp/hang_twin.so")
      [[ $running -ge 5 ]] || fail "--jobs 2: $running processes of the run, not konform, 2 workers and 2 children"
    fi
    kill -"$sig" "$pid"
    wait "$pid" 2>/dev/null
    sleep 1
    if pgrep -f "$lib" >/dev/null; then
      fail "--jobs $jobs, SIG$sig: processes left behind: $(pgrep -af "$lib" | head -3)"
      pgrep -f "$lib" | xargs -r kill -KILL
    else
      echo "ok:   SIG$sig of konform during a hang (--jobs $jobs) leaves no process"
    fi
    [[ -e $tmp/killed.json ]] && fail "--jobs $jobs, SIG$sig: a report was written by a killed run"
    if [[ $sig == TERM ]] && compgen -G "$tmp/killed.json.konform-*" >/dev/null; then
      fail "--jobs $jobs, SIGTERM: the temporary report was left behind"
    fi
    rm -f "$tmp"/killed.json*
  done
done

# Two backends that hang, --jobs 2: both findings, in backend order, and the report.
"$konform" check --backend "$lib" --backend "$tmp/hang_twin.so" "${args[@]}" --jobs 2 --report "$tmp/twins.json" \
  >"$tmp/twins.out" 2>&1
rc=$?
[[ $rc -eq 1 ]] || fail "two hanging backends, --jobs 2: exit status $rc, expected 1"
[[ $(grep -c "^      no_hang:" "$tmp/twins.out") -eq 2 ]] || fail "two hanging backends, --jobs 2: not two no_hang findings"
grep -m1 "^FAIL" "$tmp/twins.out" | grep -q "libkonform_hostile_hang_call.so" ||
  fail "two hanging backends, --jobs 2: results not in backend order"
python3 -c 'import json, sys; assert len(json.load(open(sys.argv[1]))["results"]) == 2' "$tmp/twins.json" ||
  fail "two hanging backends, --jobs 2: no report with both results"
echo "ok:   two backends hanging at once, --jobs 2"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all hostile plugins handled"
