#!/usr/bin/env bash
# cmake --install into a scratch prefix, then: a consumer project builds and
# runs against it through find_package(konform) and through pkg-config, and
# the installed konform checks its installed backends from any directory.
#   usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/konform include/tinyllm/elementwise.h include/tinyllm/cuda/stream.h share/konform/schemas/report.schema.json \
         lib/cmake/konform/konformConfig.cmake lib/pkgconfig/konform.pc; do
  [[ -e $prefix/$f ]] || { echo "FAIL: the install has no $f"; exit 1; }
done

# find_package(konform)
cmake -S "$src/tests/install_consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$work/cfg.log"
cmake --build "$work/consumer" > "$work/build.log"
LD_LIBRARY_PATH=$prefix/lib ctest --test-dir "$work/consumer" --output-on-failure

# pkg-config
# shellcheck disable=SC2046
cc "$src/tests/install_consumer/consumer.c" -o "$work/consumer_pc" \
   $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs konform)
LD_LIBRARY_PATH=$prefix/lib "$work/consumer_pc"

# The installed command uses the installed libraries, run from elsewhere.
cd "$work"
out=$("$prefix/bin/konform" check --backend simd --backend scalar --op elementwise_add --cases 5 --no-properties \
      --report installed.json 2>&1)
echo "$out"
grep -Eq '^2 passed, 0 failed' <<<"$out" || { echo "FAIL: the installed konform's check"; exit 1; }
python3 - "$prefix" <<'PY' || { echo "FAIL: the installed konform did not load the installed libraries"; exit 1; }
import json, os, sys
prefix = os.path.realpath(sys.argv[1])
libs = [os.path.realpath(b["library"]) for b in json.load(open("installed.json"))["backends"]]
sys.exit(0 if libs and all(l.startswith(prefix + "/") for l in libs) else 1)
PY
"$prefix/bin/konform" list elementwise_add --backend simd | grep -q '^elementwise_add ' || { echo "FAIL: installed list --backend simd"; exit 1; }
echo "install: 3 passed, 0 failed"
