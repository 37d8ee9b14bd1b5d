#!/bin/bash -eu
# Builds every konform fuzz target the way OSS-Fuzz and ClusterFuzzLite expect:
# compilers and flags from $CC, $CXX, $CFLAGS, $CXXFLAGS (the service's
# sanitizer and coverage flags), the engine from $LIB_FUZZING_ENGINE, and into
# $OUT each target with its seed corpus (<target>_seed_corpus.zip), dictionary
# (<target>.dict) and options (<target>.options). docs/oss-fuzz.md has the steps.
#
# Also runs outside the services, e.g. to check it:
#   SRC=/tmp/src WORK=/tmp/work OUT=/tmp/out CC=clang CXX=clang++ \
#   CFLAGS="-O1 -gline-tables-only -fsanitize=address,fuzzer-no-link" CXXFLAGS="$CFLAGS" \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer bash fuzz/oss-fuzz/build.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build=$WORK/konform-build
deps=$WORK/konform-deps
mkdir -p "$build" "$OUT"

# Highway from source, built with the service's compiler and flags (its
# runner has no libhwy, and libc++ builds need their own). The Dockerfile
# clones it to $SRC/highway; without that clone the system's Highway is used.
prefix_path=""
if [ -d "$SRC/highway" ]; then
  cmake -S "$SRC/highway" -B "$WORK/highway-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF \
    -DHWY_ENABLE_TESTS=OFF -DHWY_ENABLE_EXAMPLES=OFF -DHWY_ENABLE_CONTRIB=ON -DCMAKE_INSTALL_PREFIX="$deps"
  cmake --build "$WORK/highway-build" -j"$(nproc)" --target install
  prefix_path="-DCMAKE_PREFIX_PATH=$deps"
fi

# The service's flags only: a build type with no flags of its own, and
# konform's own sanitizer flags off.
cmake -S "$source_dir" -B "$build" -G Ninja $prefix_path \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_BUILD_TYPE=OSSFuzz -DKONFORM_FUZZ=ON -DKONFORM_FUZZ_OWN_FLAGS=OFF \
  -DKONFORM_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DKONFORM_MUTANTS=OFF -DKONFORM_BENCH=OFF
cmake --build "$build" -j"$(nproc)" --target konform_fuzzers

# The kernels' shared library travels with the targets, found through $ORIGIN/lib.
mkdir -p "$OUT/lib"
cp "$build"/impl/libtl_kernels.so* "$OUT/lib/"

seeds=$WORK/konform-seeds
rm -rf "$seeds"
"$build/fuzz/konform_fuzz_seeds" "$seeds"

corpus_of() {  # the directories and files a target's seed corpus is made of
  case "$1" in
    konform_fuzz_tolerance_table) echo "$source_dir/fixtures/tolerances $source_dir/fixtures/malformed/tolerances $source_dir/reference/tolerances.tsv" ;;
    konform_fuzz_reproducer) echo "$source_dir/fixtures/cases $source_dir/fixtures/malformed/reproducers $source_dir/fuzz/regressions" ;;
    konform_fuzz_report) echo "$source_dir/fixtures/reports" ;;
    *) echo "$seeds/$2 $source_dir/fuzz/corpus/$2" ;;
  esac
}

while IFS=$'\t' read -r name kind family path; do
  [ "$name" = name ] && continue
  cp "$path" "$OUT/$name"
  patchelf --set-rpath '$ORIGIN/lib' "$OUT/$name"
  if [ "$kind" = op ]; then dict=ops; else dict=${name#konform_fuzz_}; fi
  [ -f "$source_dir/fuzz/dict/$dict.dict" ] && cp "$source_dir/fuzz/dict/$dict.dict" "$OUT/$name.dict"
  # Findings go to the working directory the service gives; the default backend is simd.
  printf '[libfuzzer]\ntimeout = 25\nmax_len = 4096\n' > "$OUT/$name.options"
  zip_dir=$(mktemp -d)
  for src in $(corpus_of "$name" "$family"); do
    if [ -d "$src" ]; then find "$src" -type f -exec cp {} "$zip_dir/" \;
    elif [ -f "$src" ]; then cp "$src" "$zip_dir/"; fi
  done
  (cd "$zip_dir" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  rm -rf "$zip_dir"
done < "$build/fuzz/targets.tsv"
