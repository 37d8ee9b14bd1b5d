#!/usr/bin/env bash
# Builds libtheirs.so with plain cc in a scratch directory, outside konform's
# build, and checks it the way another project's CI would. Also checks a
# library that exports only some symbols: the rest must be "unsupported",
# not failures.
# usage: check_outside.sh KONFORM_BINARY KONFORM_SOURCE_DIR
set -euo pipefail
konform=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# The example's own Makefile, as its README tells a user to run it.
cp "$src/examples/theirs/theirs.c" "$src/examples/theirs/Makefile" .
make -s check KONFORM="$src" KONFORM_BIN="$konform" | tee make.out
grep -Eq '^6 passed, 0 failed, [0-9]+ unsupported$' make.out
[[ -s theirs.json ]]

cc -O2 -shared -fPIC -I"$src/include" "$src/examples/theirs/theirs.c" -o libtheirs.so -lm
"$konform" check --backend ./libtheirs.so --cases 200 --report theirs.json | tee theirs.out
grep -Eq '^6 passed, 0 failed, [0-9]+ unsupported$' theirs.out

cat > partial.c <<'C'
#include <tinyllm/elementwise.h>
void tl_add_f32(const float *a, const float *b, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
C
cc -O2 -shared -fPIC -I"$src/include" partial.c -o libpartial.so
"$konform" check --backend ./libpartial.so --cases 50 | tee partial.out
grep -Eq '^1 passed, 0 failed, [0-9]+ unsupported$' partial.out
echo "external plugins: ok"
