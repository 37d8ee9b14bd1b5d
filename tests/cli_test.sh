#!/usr/bin/env bash
# The command line's error handling: bad usage and unreadable input exit 2
# with a message naming the problem; list and a small check exit 0.
#   usage: cli_test.sh PATH/TO/konform
set -u

konform=${1:?usage: cli_test.sh PATH/TO/konform}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

source "$(dirname "$0")/expect.sh"

# Bad usage.
expect 2 '^usage:' -- 
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 2 "no op matches 'extra'" -- list extra
expect 2 "list takes one PATTERN" -- list rms elementwise_add
expect 2 "unknown family 'nrm' \\(did you mean 'norm'\\?\\)" -- list --family nrm
expect 2 "--format takes text or json" -- list --format yaml
expect 2 "unknown command 'chekc' \\(did you mean 'check'\\?\\)" -- chekc
expect 2 "unknown option '--opp' \\(did you mean '--op'\\?\\)" -- check --backend scalar --opp elementwise_add
expect 2 "unknown op 'rmsnrm' \\(did you mean 'RmsNorm'\\?\\)" -- check --backend scalar --op rmsnrm
expect 0 "^konform [0-9]+\\.[0-9]+\\.[0-9]+ \\(git " -- --version
expect 0 "^4 of [0-9]+ ops" -- list rmsnorm  # RmsNorm, its f16 and bf16 twins, elementwise_rmsnorm
# The JSON says which ops judge outputs by checks of their own (Quantize's blocks by what they decode to).
expect 0 '"name": "Quantize_Q8_0"' -- list Quantize_Q8_0 --format json
[[ $("$konform" list Quantize_Q8_0 --format json | grep -c '"verify": true') == 3 ]] ||
  { echo "FAIL: list --format json: Quantize_Q8_0 and its f16 and bf16 twins alone (not the Dequantize ops) should have verify true"; failures=$((failures + 1)); }
expect 2 "unknown option '--bogus'" -- check --backend scalar --bogus
expect 2 "check needs at least one --backend" -- check
expect 2 "--backend needs a value" -- check --backend
expect 2 "unknown op 'nope'" -- check --backend scalar --op nope
expect 2 "unknown op 'nope'" -- check --backend scalar --op elementwise_rmsnorm,nope
expect 2 "unknown backend 'nope'" -- check --backend nope
expect 2 "target 'NOPE' is not available here" -- check --backend simd:NOPE
expect 2 "--case needs exactly one --op" -- check --backend scalar --case 3
expect 2 "--case needs exactly one --op" -- check --backend scalar --op elementwise_add,elementwise_rope --case 3
expect 2 "--cases: 'abc' is not an integer" -- check --backend scalar --cases abc
expect 2 "--cases: '12x' is not an integer" -- check --backend scalar --cases 12x
expect 2 "--cases: -1 is below the minimum 0" -- check --backend scalar --cases -1
expect 2 "--seed: '' is not an integer" -- check --backend scalar --seed ''
expect 2 "unknown property 'nope'" -- check --backend scalar --property nope
expect 2 "contradict" -- check --backend scalar --property hand_example --no-properties

# Option combinations that would check nothing, or less than asked.
expect 2 "--case replays a sweep case and --property runs no sweep" -- \
  check --backend scalar --op elementwise_add --case 3 --property add_in_place
expect 2 "property 'rmsnorm_eps_is_inside_the_root' belongs to elementwise_rmsnorm, which no --op chooses" -- \
  check --backend scalar --op elementwise_add --property rmsnorm_eps_is_inside_the_root
expect 2 "--cases 0 with --no-properties checks nothing" -- check --backend scalar --op elementwise_add --cases 0 --no-properties
expect 2 "--property runs no sweep: --cases does not apply" -- check --backend scalar --op elementwise_add --property add_in_place --cases 5
expect 2 "--case replays one case: --cases does not apply" -- check --backend scalar --op elementwise_add --case 3 --cases 5
expect 2 "--property-runs does not apply: --no-properties" -- check --backend scalar --op elementwise_add --no-properties --property-runs 5
expect 0 '^usage:.*' -- check --help
expect 0 'konform repro FILE' -- repro --help
expect 0 'konform render REPORT' -- render -h
# Empty names.
expect 2 "--op: empty name" -- check --backend scalar --op ''
expect 2 "--op: empty name" -- check --backend scalar --op elementwise_add,
expect 2 "--op: empty name" -- check --backend scalar --op elementwise_add,,elementwise_rope
expect 2 "--property: empty name" -- check --backend scalar --property ''
expect 2 "--backend: empty name" -- check --backend ''
expect 2 "--op: empty name" -- repro "$tmp/any" --op ''
# Numbers: bounded, decimal, one parser for check and repro.
expect 2 "--property-runs: 4294967296 is above the maximum 1000000" -- check --backend scalar --op elementwise_add --property-runs 4294967296
expect 2 "--property-runs: 0 is below the minimum 1" -- check --backend scalar --op elementwise_add --property-runs 0
expect 2 "--case: 9223372036854775807 is above the maximum 999999999" -- check --backend scalar --op elementwise_add --case 9223372036854775807
expect 2 "--cases: 99999999999999999999 is above the maximum 1000000000" -- check --backend scalar --cases 99999999999999999999
expect 2 "--cases: ' 5' is not an integer" -- check --backend scalar --cases ' 5'
expect 2 "--cases: '\\+5' is not an integer" -- check --backend scalar --cases +5
expect 0 'seed 18446744073709551615' -- check --backend scalar --op elementwise_add --cases 1 --no-properties --seed 18446744073709551615
expect 2 "--seed: 18446744073709551616 is above the maximum" -- check --backend scalar --seed 18446744073709551616
expect 2 "--timeout: 10000000000000000 is above the maximum of 1000000 seconds" -- \
  check --backend scalar --op elementwise_add --timeout 10000000000000000
expect 2 "--timeout: 'inf' is not a decimal number of seconds" -- check --backend scalar --timeout inf
expect 2 "--timeout: '1e-300' is not a decimal number of seconds" -- check --backend scalar --timeout 1e-300
expect 2 "--timeout: 0 is not above 0 seconds" -- check --backend scalar --timeout 0
expect 2 "--timeout: '0x10' is not a decimal number of seconds" -- repro "$tmp/any" --timeout 0x10
expect 2 "--timeout: 1e300 is above|--timeout: '1e300' is not a decimal" -- repro "$tmp/any" --timeout 1e300
expect 0 'PASS +elementwise_add +scalar +1 cases' -- check --backend scalar --op elementwise_add --cases 1 --no-properties --timeout 1.5
# Repeated options, values that are options, one path for two outputs, repeated names.
expect 2 "--seed is given twice" -- check --backend scalar --seed 1 --seed 2
expect 2 "--report is given twice" -- check --backend scalar --report "$tmp/a" --report "$tmp/b"
expect 2 "--timeout is given twice" -- repro "$tmp/any" --timeout 1 --timeout 2
expect 2 "--junit is given twice" -- render "$tmp/any" --junit "$tmp/a" --junit "$tmp/b"
expect 2 "--report needs a value, got the option '--no-properties'" -- check --backend scalar --report --no-properties
expect 2 "--report and --junit name the same file" -- check --backend scalar --report "$tmp/r" --junit "$tmp/./r"
expect 2 "--junit and --html name the same file" -- render "$tmp/any" --junit "$tmp/v" --html "$tmp/v"
expect 2 "the report and --html name the same file" -- render "$tmp/rep.json" --html "$tmp/rep.json"
expect 2 "--backend: 'scalar' is given twice" -- check --backend scalar --backend scalar
expect 2 "--op: 'elementwise_add' is given twice" -- check --backend scalar --op elementwise_add --op elementwise_add
expect 2 "backend simd:SCALAR is chosen twice" -- check --backend simd:all --backend simd:SCALAR --op elementwise_add
expect 2 "--backend: 'scalar' is given twice" -- repro "$tmp/any" --backend scalar --backend scalar
[[ ! -e "$tmp/a" && ! -e "$tmp/r" ]] || { echo "FAIL: a refused command line wrote an output"; failures=$((failures + 1)); }

# Unreadable or malformed input files.
expect 2 "'$tmp' is a directory, not a file" -- check --backend scalar --op elementwise_add --tolerances "$tmp"
expect 2 "'$tmp' is a directory, not a file" -- render "$tmp" --junit "$tmp/j.xml"
expect 2 "'$tmp' is a directory, not a file" -- repro "$tmp"
expect 2 "'$tmp' is a directory, not a file" -- repro "$tmp" --op elementwise_add
expect 2 "'/dev/null' is not a regular file" -- repro /dev/null --op elementwise_add
expect 2 "cannot read '$tmp/missing.json': no such file" -- repro "$tmp/missing.json"
printf '{"schema": 3}' >"$tmp/schema_int.json"
expect 2 "'$tmp/schema_int.json' is not a konform report: its \"schema\" is 3" -- render "$tmp/schema_int.json" --junit "$tmp/j.xml"
# A raw fuzz input must decode to the op named, in that op's own fuzz target.
printf '\001\000\000\000' >"$tmp/split.input"  # byte 0: op 1 of tensor_cut's Concat, Split, Chunk
expect 2 "is an input of op Split in fuzz target konform_fuzz_tensor_cut, not of Concat" -- \
  repro "$tmp/split.input" --op Concat --backend scalar
expect 2 "is in the corpus of fuzz target konform_fuzz_tensor_cut, and elementwise_add is fuzzed by konform_fuzz_add" -- \
  repro "$src/fuzz/corpus/tensor_cut/concat-3-tensors-of-148608-floats.input" --op elementwise_add --backend scalar
expect 2 'is a konform JSON file \("schema": "konform-repro/1"\), not a raw fuzz input: drop --op' -- \
  repro "$src/fixtures/cases/elementwise_add-in_place.json" --op elementwise_add --backend scalar
expect 2 "cannot read '$tmp/missing.tsv'" -- check --backend scalar --op elementwise_add --tolerances "$tmp/missing.tsv"
printf '# op\tdtype\tlimit\tspec\twhy\nadd\tf32\tone\t-\tone rounding\n' >"$tmp/bad_number.tsv"
expect 2 "$tmp/bad_number.tsv:2: limit: 'one' is not a finite non-negative number" -- \
  check --backend scalar --op elementwise_add --tolerances "$tmp/bad_number.tsv"
printf 'elementwise_add\tf32\t1\n' >"$tmp/short.tsv"
expect 2 "$tmp/short.tsv:1: expected 5 tab-separated fields" -- \
  check --backend scalar --op elementwise_add --tolerances "$tmp/short.tsv"
printf 'elementwise_rmsnorm\tf32\t17\t1e-6\ttoo loose\n' >"$tmp/ceiling.tsv"
expect 2 "$tmp/ceiling.tsv:1: limit 17 u exceeds the spec's ceiling" -- \
  check --backend scalar --op elementwise_rmsnorm --tolerances "$tmp/ceiling.tsv"
# A well-formed table without the op's entry is unusable input too.
printf '# nothing here\n' >"$tmp/empty.tsv"
expect 2 "has no entry for elementwise_add f32" -- check --backend scalar --op elementwise_add --cases 3 --tolerances "$tmp/empty.tsv"
# A file that is not a shared library.
printf 'not an ELF file\n' >"$tmp/libfake.so"
expect 2 "cannot load backend library" -- check --backend "$tmp/libfake.so"

# Outputs: checked before the run; written in full or an error; a finding
# survives a reproducer that cannot be written; stdout's errors count.
printf 'elementwise_add\tf32\t0\t-\tno rounding allowed: every case fails\n' >"$tmp/tol_zero.tsv"
expect 2 "--repro-dir: cannot create '/proc/konform-x'" -- \
  check --backend scalar --op elementwise_add --cases 3 --no-properties --tolerances "$tmp/tol_zero.tsv" --repro-dir /proc/konform-x
echo OLD >"$tmp/old.json"  # a run refused before it starts keeps the old report, and leaves no new file
expect 2 "--repro-dir: cannot create '/proc/konform-x'" -- \
  check --backend scalar --op elementwise_add --cases 3 --no-properties --report "$tmp/old.json" --junit "$tmp/new.xml" --repro-dir /proc/konform-x
[[ "$(cat "$tmp/old.json")" == OLD && ! -e "$tmp/new.xml" ]] ||
  { echo "FAIL: a refused run truncated an old report or left a new empty file"; failures=$((failures + 1)); }
expect 2 "cannot write the report to '$tmp/no/such/dir/r.json'" -- \
  check --backend scalar --op elementwise_add --cases 3 --no-properties --report "$tmp/no/such/dir/r.json"
expect 2 "cannot write the JUnit XML to '/dev/full'" -- check --backend scalar --op elementwise_add --cases 3 --no-properties --junit /dev/full
self=$(readlink -f "$konform")
expect 1 "replay: $self check --backend scalar --op elementwise_add --seed 1 --case [0-9]+ --tolerances $tmp/tol_zero.tsv +\\(or: $self repro $tmp/rd/elementwise_add-matches_oracle-[0-9a-f]+.json --tolerances $tmp/tol_zero.tsv\\)" -- \
  check --backend scalar --op elementwise_add --cases 3 --no-properties --tolerances "$tmp/tol_zero.tsv" --repro-dir "$tmp/rd"
found=$(ls "$tmp"/rd/elementwise_add-matches_oracle-*.json 2>/dev/null | head -1)
expect 1 "FAIL  elementwise_add on scalar: matches_oracle" -- repro "$found" --tolerances "$tmp/tol_zero.tsv"
expect 0 "note: recorded with a limit of 0 u; this replay judges with 1 u" -- repro "$found"
expect 2 "--tolerances is given twice" -- repro "$found" --tolerances "$tmp/tol_zero.tsv" --tolerances "$tmp/tol_zero.tsv"
# The same reproducers again, into a directory where a directory blocks each file's name.
mkdir -p "$tmp/rd2"
for f in "$tmp"/rd/*.json; do mkdir "$tmp/rd2/$(basename "$f")"; done
expect 1 "a finding's reproducer was not written \\(the finding stands\\)" -- \
  check --backend scalar --op elementwise_add --cases 3 --no-properties --tolerances "$tmp/tol_zero.tsv" --repro-dir "$tmp/rd2"
expect 1 "0 passed, 1 failed" -- \
  check --backend scalar --op elementwise_add --cases 3 --no-properties --tolerances "$tmp/tol_zero.tsv" --repro-dir "$tmp/rd2"
for args in "list" "check --backend scalar --op elementwise_add --cases 1 --no-properties" "repro $src/fixtures/cases/elementwise_add-in_place.json --backend scalar"; do
  err=$("$konform" $args 2>&1 >/dev/full)
  rc=$?
  if [[ $rc -ne 2 ]] || ! grep -q "cannot write standard output" <<<"$err"; then
    echo "FAIL: konform $args >/dev/full exited $rc: $err"
    failures=$((failures + 1))
  else
    echo "ok:   konform $args >/dev/full -> 2"
  fi
done

# What works.
expect 0 '^usage:' -- --help
list_out=$("$konform" list 2>&1)
list_rc=$?
if [[ $list_rc -ne 0 ]]; then
  echo "FAIL: konform list exited $list_rc"
  failures=$((failures + 1))
fi
for op in rmsnorm rope silu_mul embedding add argmax; do
  if ! grep -Eq "^elementwise_$op  \(tl_${op}_f32, " <<<"$list_out"; then
    echo "FAIL: konform list does not list elementwise_$op (tl_${op}_f32)"
    failures=$((failures + 1))
  fi
done
[[ $list_rc -eq 0 ]] && echo "ok:   konform list -> 0, six ops"
expect 0 'PASS +elementwise_argmax +scalar +5 cases' -- check --backend scalar --op elementwise_argmax --cases 5
expect 0 '1 passed, 0 failed, 0 unsupported' -- check --backend scalar --op elementwise_argmax --cases 5
expect 0 'PASS +elementwise_add +scalar +1 cases' -- check --backend scalar --op elementwise_add --seed 3 --case 7 --no-properties

# --quiet: what failed or did not run, and the summary; the same exit status.
expect 2 "--quiet and --verbose contradict each other" -- check --backend scalar --quiet --verbose
quiet=$("$konform" check --backend scalar --op elementwise_add,elementwise_argmax --cases 5 --quiet --report "$tmp/quiet.json" 2>&1)
rc=$?
[[ $rc -eq 0 && $quiet == "2 passed, 0 failed, 0 unsupported" ]] && echo "ok:   --quiet on a pass prints the summary alone" ||
  fail "--quiet on a pass exited $rc and printed: $quiet"
quiet=$("$konform" check --backend scalar --op elementwise_add,elementwise_argmax --cases 3 --no-properties --tolerances "$tmp/tol_zero.tsv" \
  --quiet 2>&1)
rc=$?
if [[ $rc -eq 1 ]] && grep -q '^FAIL  elementwise_add ' <<<"$quiet" && grep -q '^        replay: ' <<<"$quiet" &&
  [[ $(tail -1 <<<"$quiet") == "1 passed, 1 failed, 0 unsupported" ]] && ! grep -Eq '^(PASS|SKIP|konform check:)|s elapsed' <<<"$quiet"; then
  echo "ok:   --quiet on a failure prints its FAIL lines and the summary, and exits 1"
else
  fail "--quiet on a failure exited $rc and printed:"
  sed 's/^/    /' <<<"$quiet" | head -20
fi

# --fail-fast: a failing op stops at its first failing case; its properties
# are shown not run, with the reason; the report says so. A passing op runs
# every case.
"$konform" check --backend scalar --op elementwise_add,elementwise_argmax --cases 30 --tolerances "$tmp/tol_zero.tsv" \
  --fail-fast --report "$tmp/ff.json" >"$tmp/ff.out" 2>&1
rc=$?
if [[ $rc -eq 1 ]] && python3 - "$tmp/ff.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
add, argmax = (next(r for r in d["results"] if r["op"] == op) for op in ("elementwise_add", "elementwise_argmax"))
skipped = [c for c in add["checks"] if c["kind"] == "property"]
assert d.get("fail_fast") is True, "no fail_fast in the report"
assert add["verdict"] == "fail" and add["cases"] < 30, (add["verdict"], add["cases"])
assert skipped and all(c["runs"] == 0 and "--fail-fast" in c.get("reason", "") for c in skipped), skipped
assert argmax["verdict"] == "pass" and argmax["cases"] == 30, (argmax["verdict"], argmax["cases"])
PY
  echo "ok:   --fail-fast stops a failing op at its first failure, shows its properties not run, and runs a passing op whole"
else
  fail "--fail-fast exited $rc; report $(cat "$tmp/ff.json" 2>/dev/null | head -c 300)"
fi

# --dtype: every op of a dtype, the union with --op.
expect 2 "no op has dtype 'f17' \\(did you mean 'f16'\\?\\); the ops' dtypes: " -- check --backend scalar --dtype f17
# (5 cases: the feed-forwards' first three edges hold too few distinct values to be trusted)
expect 0 '^[0-9]+ passed, 0 failed, 0 unsupported$' -- check --backend scalar --dtype bf16 --cases 5 --no-properties
[[ $("$konform" check --backend scalar --dtype bf16 --op Add --cases 5 --no-properties | grep -c '^PASS') -eq \
   $(($("$konform" list --format json | python3 -c 'import json,sys; print(sum(o["dtype"] == "bf16" for o in json.load(sys.stdin)))') + 1)) ]] &&
  echo "ok:   --dtype bf16 --op Add checks every bf16 op and Add" || fail "--dtype bf16 --op Add: not every bf16 op and Add"

# --family: every op of a family, once even when --op names one too.
expect 2 "unknown family 'norms' \\(did you mean 'norm'\\?\\); the families: " -- check --backend scalar --family norms
expect 0 '^6 passed, 0 failed, 0 unsupported$' -- \
  check --backend scalar --family elementwise --op elementwise_add --cases 30 --no-properties

# Former op names (the six contract kernels were add, rmsnorm, ...): accepted
# with a warning on --op, in reproducers, tolerance tables and baselines;
# everything konform writes names the op as it is now.
former="warning: op 'add' is now 'elementwise_add'; the old name is accepted until konform"
expect 0 "$former" -- check --backend scalar --op add --cases 2 --no-properties
expect 0 'PASS +elementwise_add +scalar +2 cases' -- check --backend scalar --op add --cases 2 --no-properties
expect 2 "--op: 'elementwise_add' is given twice" -- check --backend scalar --op add,elementwise_add
sed 's/"op": "elementwise_add"/"op": "add"/' "$src/fixtures/cases/elementwise_add-in_place.json" >"$tmp/former.json"
expect 0 "$former" -- repro "$tmp/former.json" --backend scalar
expect 0 'PASS +elementwise_add on scalar' -- repro "$tmp/former.json" --backend scalar
printf 'add\tf32\t1\t-\tone rounding\n' >"$tmp/former.tsv"
expect 0 "$tmp/former.tsv:1: op 'add' is now 'elementwise_add'" -- \
  check --backend scalar --op elementwise_add --cases 2 --no-properties --tolerances "$tmp/former.tsv"
grep -q '"op": "elementwise_add"' "$found" && echo "ok:   a reproducer records the op's name now" ||
  fail "$found does not record \"op\": \"elementwise_add\""
"$konform" check --backend scalar --op elementwise_add,Sub --cases 3 --no-properties --report "$tmp/now.json" >/dev/null 2>&1
sed 's/"op": "elementwise_add"/"op": "add"/' "$tmp/now.json" >"$tmp/before_rename.json"
expect 0 "^2 op-backend pairs compared, 0 regression\\(s\\), 0 change\\(s\\)" -- diff "$tmp/before_rename.json" "$tmp/now.json"

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all command-line checks passed"
