#!/usr/bin/env bash
# Replay lines and reproducers work from any directory: a replay line starts
# with the absolute path of the konform that printed it and names every file
# by its absolute path, even when konform ran from PATH with relative paths.
#   usage: replay_test.sh KONFORM SCALAR_LIBRARY SILENT_LIBRARY
# SILENT_LIBRARY: the scalar kernels with a tl_last_error that has no words
# (it fails the property refused_with_a_message).
set -u
konform=${1:?usage: replay_test.sh KONFORM SCALAR_LIBRARY SILENT_LIBRARY}
scalar=${2:?}
silent=${3:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "$0")/expect.sh"
self=$(readlink -f "$konform")

# konform from PATH, every path relative: the lines name them all from the root.
mkdir -p "$tmp/work" "$tmp/lib"
cp "$scalar" "$tmp/lib/libcopy.so"
cp "$silent" "$tmp/lib/libsilent.so"
printf 'add\tf32\t0\t-\tno rounding allowed: every case fails\n' >"$tmp/work/tol_zero.tsv"
on_path() { (cd "$tmp/work" && PATH="$(dirname "$konform"):$PATH" konform "$@"); }
out=$(on_path check --backend ../lib/libcopy.so --op add --cases 3 --no-properties --tolerances tol_zero.tsv \
  --repro-dir rd 2>&1)
replay=$(sed -n 's/^        replay: //p' <<<"$out" | head -1)
want="$self check --backend $tmp/lib/libcopy.so --op add --seed 1 --case [0-9]+ --tolerances $tmp/work/tol_zero.tsv"
want+="   \\(or: $self repro $tmp/work/rd/add-matches_oracle-[0-9a-f]+\\.json --tolerances $tmp/work/tol_zero.tsv\\)"
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
run_expect 1 'FAIL  add on .*matches_oracle' -- bash -c "cd / && $repro_line"

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
out=$(cd "$tmp/with space" && "$konform" check --backend "./lib copy.so" --op add --cases 3 --no-properties \
  --tolerances "$tmp/work/tol_zero.tsv" 2>&1)
replay=$(sed -n 's/^        replay: //p' <<<"$out" | head -1)
if [[ $replay == "$self check --backend '$tmp/with space/lib copy.so' --op add "* ]]; then
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
