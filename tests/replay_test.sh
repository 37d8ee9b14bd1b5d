#!/usr/bin/env bash
# Replay lines and reproducers work from any directory: a replay line starts
# with the absolute path of the konform that printed it and names every file
# by its absolute path, even when konform ran from PATH with relative paths;
# a reproducer records its library's path and hash, and its replay warns
# when that file has changed since.
#   usage: replay_test.sh KONFORM SCALAR_LIBRARY SILENT_LIBRARY OTHER_LIBRARY
# SILENT_LIBRARY: the scalar kernels with a tl_last_error that has no words
# (it fails the property refused_with_a_message); OTHER_LIBRARY: any other
# backend library (libtl_kernels.so).
set -u
konform=${1:?usage: replay_test.sh KONFORM SCALAR_LIBRARY SILENT_LIBRARY OTHER_LIBRARY}
scalar=${2:?}
silent=${3:?}
other=${4:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "$0")/expect.sh"
konform=$(readlink -f "$konform")  # what replay lines start with: the program's path, from the root
self=$konform

# konform from PATH, every path relative: the lines name them all from the root.
mkdir -p "$tmp/work" "$tmp/lib"
cp "$scalar" "$tmp/lib/libcopy.so"
cp "$silent" "$tmp/lib/libsilent.so"
printf 'elementwise_add\tf32\t0\t-\tno rounding allowed: every case fails\n' >"$tmp/work/tol_zero.tsv"
on_path() { (cd "$tmp/work" && PATH="$(dirname "$konform"):$PATH" konform "$@"); }
out=$(on_path check --backend ../lib/libcopy.so --op elementwise_add --cases 3 --no-properties --tolerances tol_zero.tsv \
  --repro-dir rd 2>&1)
replay=$(sed -n 's/^        replay: //p' <<<"$out" | head -1)
want="$self check --backend $tmp/lib/libcopy.so --op elementwise_add --seed 1 --case [0-9]+ --tolerances $tmp/work/tol_zero.tsv"
want+="   \\(or: $self repro $tmp/work/rd/elementwise_add-matches_oracle-[0-9a-f]+\\.json --tolerances $tmp/work/tol_zero.tsv\\)"
if grep -Eqx -- "$want" <<<"$replay"; then
  echo "ok:   the replay line names konform and every file from the root"
else
  fail "the replay line is not /$want/:"
  echo "$out" | sed 's/^/    /' | head -20
fi
# Both of its commands, pasted in another directory, give the finding again.
sweep_line=${replay%%   (or: *}
repro_line=${replay#*(or: }
repro_line=${repro_line%)}
run_expect 1 'matches_oracle \[magnitude\]' -- bash -c "cd / && $sweep_line"
run_expect 1 'FAIL  elementwise_add on .*matches_oracle' -- bash -c "cd / && $repro_line"

# The reproducer holds the library's absolute path and hash.
found=$(ls "$tmp"/work/rd/elementwise_add-matches_oracle-*.json | head -1)
recorded=$(python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["library"]; print(l["path"], l["sha256"], l["bytes"])' "$found")
actual="$tmp/lib/libcopy.so $(sha256sum <"$tmp/lib/libcopy.so" | cut -d' ' -f1) $(stat -c %s "$tmp/lib/libcopy.so")"
[[ $recorded == "$actual" ]] && echo "ok:   the reproducer records the library's path, SHA-256 and size" ||
  fail "the reproducer records '$recorded', not '$actual'"
# Another library in its place: one warning, recorded against now, and the replay goes on.
cp "$other" "$tmp/lib/libcopy.so"
out=$(cd / && "$konform" repro "$found" --tolerances "$tmp/work/tol_zero.tsv" 2>&1)
rc=$?
warnings=$(grep -c 'warning' <<<"$out")
if [[ $rc -eq 1 && $warnings -eq 1 ]] && grep -q "^FAIL  elementwise_add on $tmp/lib/libcopy.so" <<<"$out" &&
  grep -Eq "^konform: warning: the library of backend $tmp/lib/libcopy.so has changed since $found was written: recorded $tmp/lib/libcopy.so sha256 [0-9a-f]{64} \([0-9]+ bytes\), now $tmp/lib/libcopy.so sha256 [0-9a-f]{64} \([0-9]+ bytes\)$" <<<"$out"; then
  echo "ok:   a changed library is one warning, and the replay goes on"
else
  fail "a changed library (exit $rc, $warnings warning line(s)):"
  echo "$out" | sed 's/^/    /' | head -20
fi
# A file from before the hash was recorded still replays, saying it cannot verify the library.
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); del r["library"]; json.dump(r, open(sys.argv[2], "w"))' \
  "$found" "$tmp/old.json"
run_expect 1 "warning: $tmp/old.json records no hash of its backend's library: cannot verify that $tmp/lib/libcopy.so" \
  -- "$konform" repro "$tmp/old.json" --tolerances "$tmp/work/tol_zero.tsv"
# A malformed hash is an error naming the file and the field.
sed 's/"sha256": "[0-9a-f]*"/"sha256": "xyz"/' "$found" >"$tmp/bad.json"
expect 2 "^konform: $tmp/bad.json: library.sha256: 'xyz' is not 64 lowercase hex digits" -- repro "$tmp/bad.json"
# A library that is gone is an error naming its path.
rm "$tmp/lib/libcopy.so"
expect 2 "cannot load backend library '$tmp/lib/libcopy.so': no such file" -- repro "$found"

# A property's replay line, from a backend given as a relative path.
out=$(on_path check --backend ../lib/libsilent.so --op Clamp --property refused_with_a_message --property-runs 5 2>&1)
replay=$(sed -n 's/^        replay: //p' <<<"$out" | head -1)
want="$self check --backend $tmp/lib/libsilent.so --op Clamp --property refused_with_a_message --seed 1( .*)?"
if grep -Eqx -- "$want" <<<"$replay"; then
  echo "ok:   a property's replay line names konform and the library from the root"
else
  fail "the property's replay line is not /$want/:"
  echo "$out" | sed 's/^/    /' | head -20
fi
run_expect 1 'refused_with_a_message' -- bash -c "cd / && ${replay%%   (*}"

# A path that needs quoting is quoted.
mkdir -p "$tmp/with space"
cp "$scalar" "$tmp/with space/lib copy.so"
out=$(cd "$tmp/with space" && "$konform" check --backend "./lib copy.so" --op elementwise_add --cases 3 --no-properties \
  --tolerances "$tmp/work/tol_zero.tsv" 2>&1)
replay=$(sed -n 's/^        replay: //p' <<<"$out" | head -1)
if [[ $replay == "$self check --backend '$tmp/with space/lib copy.so' --op elementwise_add "* ]]; then
  echo "ok:   a path with a space is quoted"
else
  fail "the path with a space is not quoted: $replay"
fi
run_expect 1 'matches_oracle \[magnitude\]' -- bash -c "cd / && $replay"

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all replay checks passed"
