#!/usr/bin/env bash
# What konform reads about backends and tolerances, through the command line:
# a --backend that is a path but no library, a library that is no plugin, a
# plugin whose constructor crashes (a finding, exit 1), a tolerance entry that can never apply,
# a bad KONFORM_FUZZ_MAX_BYTES. Each exits 2 with a message naming what and
# where; none crashes or passes with nothing checked (audit findings 11, 17,
# 18, 21, 22).
#   usage: backend_cli_test.sh KONFORM CC SOURCE_DIR FUZZ_TARGET
set -u

konform=${1:?usage: backend_cli_test.sh KONFORM CC SOURCE_DIR FUZZ_TARGET}
cc=${2:?}
src=${3:?}
fuzz_target=${4:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

source "$(dirname "$0")/expect.sh"

build() {  # build NAME C_SOURCE: $tmp/NAME.so
  printf '%s\n' "$2" >"$tmp/$1.c"
  "$cc" -shared -fPIC -I"$src/include" "$tmp/$1.c" -o "$tmp/$1.so" || {
    echo "FAIL: cannot build $1.so"
    failures=$((failures + 1))
  }
}

# 21: a value that looks like a path says what is wrong with the path.
expect 2 "cannot load backend library '$tmp/missing.so': no such file" -- check --backend "$tmp/missing.so" --op elementwise_add
expect 2 "cannot load backend library 'missing.so': no such file" -- check --backend missing.so --op elementwise_add
expect 2 "cannot load backend library '$tmp/missing.so': no such file" -- check --backend "$tmp/missing.so:AVX2" --op elementwise_add
mkdir "$tmp/dir.so"
expect 2 "'$tmp/dir.so': is a directory" -- check --backend "$tmp/dir.so" --op elementwise_add
expect 2 "'/dev/null': is not a regular file" -- check --backend /dev/null --op elementwise_add
printf 'not an ELF file\n' >"$tmp/text.so"
expect 2 "cannot load backend library '$tmp/text.so': .*(too short|invalid ELF)" -- check --backend "$tmp/text.so" --op elementwise_add
expect 2 "unknown backend 'scalr': expected scalar" -- check --backend scalr --op elementwise_add
# LIB:device: a library without device-pointer twins, or a name that is none.
expect 2 "cannot load backend library '$tmp/missing.so': no such file" -- check --backend "$tmp/missing.so:device" --op elementwise_add
expect 2 "unknown backend 'scalr:device': LIB:device takes cuda or the path" -- check --backend scalr:device --op elementwise_add
expect 2 "libtl_scalar.so exports none of konform's device-pointer symbols .*: it exports host-pointer ones, check it without :device" -- check --backend scalar:device --op elementwise_add

# 17: a shared library that exports no catalog symbol is not a plugin.
build none 'int not_a_kernel(int x) { return x + 1; }'
expect 2 "$tmp/none.so exports none of konform's C ABI symbols \(tl_" -- check --backend "$tmp/none.so" --cases 1
# A plugin with one kernel is still a plugin: the rest are unsupported.
build partial '#include <tinyllm/elementwise.h>
void tl_add_f32(const float *a, const float *b, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}'
expect 0 '^1 passed, 0 failed, [0-9]+ unsupported$' -- check --backend "$tmp/partial.so" --cases 3 --no-properties
# The fuzz targets share the check, for their own ops (FUZZ_TARGET: matmul.cpp's: Matmul and its f16 and bf16 twins).
run_expect 2 "$tmp/partial.so exports none of this target's symbols \(tl_matmul_f32, tl_matmul_f16, tl_matmul_bf16; " -- \
  env KONFORM_FUZZ_BACKEND="$tmp/partial.so" "$fuzz_target" "$tmp"
run_expect 2 "$tmp/none.so exports none of konform's C ABI symbols" -- \
  env KONFORM_FUZZ_BACKEND="$tmp/none.so" "$fuzz_target" "$tmp"

# 18: a constructor that crashes or exits is a finding (library_loads) for
# each chosen op, konform lives on, and the other backends' results stay.
build abort '#include <stdlib.h>
__attribute__((constructor)) static void boom(void) { abort(); }
void tl_add_f32(void) {}'
expect 1 "library_loads: $tmp/abort.so crashed while loading \(signal 6" -- check --backend "$tmp/abort.so" --op elementwise_add
expect 1 "^2 passed, 2 failed" -- check --backend "$tmp/abort.so" --backend scalar --op elementwise_add,Sub --cases 3 \
  --no-properties --report "$tmp/two.json"
python3 - "$tmp/two.json" <<'PY' || fail "the report of a run with a library that cannot be loaded"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
by = {(x["backend"].rsplit("/", 1)[-1], x["op"]): x for x in r}
assert by[("scalar", "elementwise_add")]["verdict"] == "pass", by
for op in ("elementwise_add", "Sub"):
    x = by[("abort.so", op)]
    assert x["verdict"] == "fail" and x["findings"][0]["check"] == "library_loads", x
PY
build segv '__attribute__((constructor)) static void boom(void) { *(volatile int *)0 = 1; }
void tl_add_f32(void) {}'
# Under AddressSanitizer (ci/test.sh's second pass) its SEGV handler would
# turn the signal into an exit status; the child must see the signal itself.
run_expect 1 "library_loads: $tmp/segv.so crashed while loading \(signal 11" -- \
  env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" "$konform" check --backend "$tmp/segv.so" --op elementwise_add
build quits '#include <stdlib.h>
__attribute__((constructor)) static void quit(void) { exit(0); }
void tl_add_f32(void) {}'
expect 1 "library_loads: $tmp/quits.so ended the process while loading" -- check --backend "$tmp/quits.so" --op elementwise_add
run_expect 2 "$tmp/abort.so crashed while loading \(signal 6" -- \
  env KONFORM_FUZZ_BACKEND="$tmp/abort.so" "$fuzz_target" "$tmp"

# 11: tolerance entries that can never apply, refused at FILE:LINE.
tol() {  # tol NAME LINE...: $tmp/NAME.tsv
  local name=$1
  shift
  printf '%s\n' "$@" >"$tmp/$name.tsv"
}
tol typo "# op	dtype	limit	spec	why" "rmsnrom	f32	16	1e-6	typo"
expect 2 "$tmp/typo.tsv:2: no op 'rmsnrom' in the catalog" -- check --backend scalar --op elementwise_add --tolerances "$tmp/typo.tsv"
tol dtype "elementwise_add	i32	1	-	no such variant"
expect 2 "$tmp/dtype.tsv:1: elementwise_add has no i32 variant" -- check --backend scalar --op elementwise_add --tolerances "$tmp/dtype.tsv"
tol exact "elementwise_add	f32	1	-	one rounding" "elementwise_argmax	f32	5	-	never used"
expect 2 "$tmp/exact.tsv:2: elementwise_argmax is compared bit for bit" -- \
  check --backend scalar --op elementwise_argmax --tolerances "$tmp/exact.tsv"
tol blank "elementwise_add 	f32	1	-	one rounding"
expect 2 "$tmp/blank.tsv:1: op name 'elementwise_add ' has leading or trailing blanks" -- \
  check --backend scalar --op elementwise_add --tolerances "$tmp/blank.tsv"
tol hex "elementwise_add	f32	0x10	-	hex"
expect 2 "$tmp/hex.tsv:1: limit: '0x10' is not a finite non-negative number in decimal" -- \
  check --backend scalar --op elementwise_add --tolerances "$tmp/hex.tsv"
tol spec0 "elementwise_rmsnorm	f32	16	0	no ceiling?"
expect 2 "$tmp/spec0.tsv:1: spec: a ceiling of 0" -- check --backend scalar --op elementwise_rmsnorm --tolerances "$tmp/spec0.tsv"
printf '\xEF\xBB\xBFadd\tf32\t1\t-\tone rounding\n' >"$tmp/bom_first.tsv"
expect 0 'PASS +elementwise_add' -- check --backend scalar --op elementwise_add --cases 3 --no-properties --tolerances "$tmp/bom_first.tsv"
printf '# header\n\xEF\xBB\xBFadd\tf32\t1\t-\tone rounding\n' >"$tmp/bom_later.tsv"
expect 2 "$tmp/bom_later.tsv:2: op name .* contains a byte order mark" -- \
  check --backend scalar --op elementwise_add --tolerances "$tmp/bom_later.tsv"

# A plugin's calls to its own exported functions reach its own definitions,
# never another library's (konform links no kernel library, and loads every
# backend RTLD_LOCAL): this Argmax along an axis hands each slice to the
# plugin's tl_argmax_f32, whose ties go last, and so fails. Had the call bound
# to a correct tl_argmax_f32 elsewhere, it would pass.
build self_calling '#include <stdlib.h>
#include <tinyllm/elementwise.h>
#include <tinyllm/tensor.h>
int32_t tl_argmax_f32(const float *x, int64_t n) {
  int32_t best = -1;
  for (int64_t i = 0; i < n; ++i)
    if (x[i] == x[i] && (best < 0 || x[i] >= x[best])) best = (int32_t)i;
  return best;
}
tl_status tl_argmax_axis_f32(const float *x, const int64_t *shape, int64_t rank, int64_t axis, int32_t *index) {
  if (shape == NULL || rank < 1 || rank > TL_TENSOR_MAX_RANK || axis < -rank || axis >= rank)
    return TL_ERR_INVALID_ARGUMENT;
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1, n = 1;
  for (int64_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) return TL_ERR_INVALID_ARGUMENT;
    n *= shape[i];
    outer *= i < axis ? shape[i] : 1;
    inner *= i > axis ? shape[i] : 1;
  }
  const int64_t length = shape[axis];
  if (length > INT32_MAX || (n > 0 && x == NULL) || (outer * inner > 0 && index == NULL))
    return TL_ERR_INVALID_ARGUMENT;
  float *slice = malloc(sizeof(float) * (size_t)(length > 0 ? length : 1));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t k = 0; k < length; ++k) slice[k] = x[(o * length + k) * inner + i];
      index[o * inner + i] = tl_argmax_f32(slice, length);
    }
  free(slice);
  return TL_OK;
}'
expect 1 'FAIL +Argmax ' -- check --backend "$tmp/self_calling.so" --op Argmax --cases 300 --no-properties

# 22: KONFORM_FUZZ_MAX_BYTES is decimal digits in range, or the target stops.
for v in 8MB abc -1 ' 5' 0x10 99999999999999999999999 1099511627777; do
  run_expect 2 "KONFORM_FUZZ_MAX_BYTES='$v' is not a byte count" -- \
    env KONFORM_FUZZ_BACKEND=scalar KONFORM_FUZZ_MAX_BYTES="$v" "$fuzz_target" "$tmp"
done

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all backend and tolerance command-line checks passed"
