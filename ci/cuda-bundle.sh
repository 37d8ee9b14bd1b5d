#!/usr/bin/env bash
# Packs what the device check needs on a GPU machine that has none of the
# project's Debian libraries into one relocatable folder (docs/cuda.md):
#   konform          runs bin/konform with lib/ on the library path
#   bin/konform      the command, built here (with nvcc)
#   bin/konform_cuda_bench
#                    the device-pointer kernels' benchmarks (where the build
#                    has them: KONFORM_BENCH=ON)
#   lib/             libtl_scalar, libtl_kernels (simd), libtl_cuda and the
#                    shared libraries the packed programs need beyond the C and
#                    C++ runtimes (libhwy, libbenchmark); nothing of CUDA: the
#                    runtime is static in libtl_cuda and the benchmark, the
#                    driver comes with the GPU, cuBLAS (~54 MB) from the
#                    machine's CUDA toolkit
#   tests/           konform_cuda_symbols_test (libtl_cuda loads and keeps its
#                    CUDA runtime inside), konform_cuda_refusals_test (refused
#                    calls, host and _dev twins, as libtl_kernels refuses them)
#   check.sh         the device check (its header says what it runs)
#   BUILD-INFO       the commit, date and CUDA architectures it was built from
# Every path inside is relative to the folder, so it runs from wherever it is
# copied. Fails when the folder reaches 30 MB.
#   usage: bash ci/cuda-bundle.sh [--no-build] [OUT_DIR]   (default build/cuda-bundle)
# The build tree is the project's build/, or $KONFORM_BUILD_DIR. --no-build packs what the build tree holds as it is (the test
# of the bundle, run by ctest, must not start a build).
set -euo pipefail
build=1
if [[ ${1:-} == --no-build ]]; then
  build=0
  shift
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/build/cuda-bundle}")
b=$(realpath -m "${KONFORM_BUILD_DIR:-$root/build}")
cd "$root"
limit=$((30 * 1024 * 1024))

targets=$([[ -f $b/build.ninja ]] && ninja -C "$b" -t targets all 2>/dev/null || true)
if ! grep -q '^tl_cuda:' <<<"$targets"; then
  echo "cuda-bundle: $b has no cuda backend: configure with nvcc (bash ci/build.sh -DKONFORM_CUDA=ON)" >&2
  exit 2
fi
bench=0
grep -q '^konform_cuda_bench:' <<<"$targets" && bench=1
want=(konform tl_scalar_backend tl_kernels tl_cuda konform_cuda_symbols_test konform_cuda_refusals_test)
((bench)) && want+=(konform_cuda_bench)
((build)) && cmake --build "$b" -j"$(nproc)" --target "${want[@]}"
((bench)) || echo "cuda-bundle: $b has no konform_cuda_bench (configured with -DKONFORM_BENCH=OFF): the bundle's check.sh will report the benchmarks NOT RUN" >&2

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/tests"
progs=("$out/bin/konform" "$out/tests/konform_cuda_symbols_test" "$out/tests/konform_cuda_refusals_test")
cp "$b/cli/konform" "$out/bin/"
cp "$b/tests/konform_cuda_symbols_test" "$b/tests/konform_cuda_refusals_test" "$out/tests/"
if ((bench)); then
  cp "$b/bench/cuda/konform_cuda_bench" "$out/bin/"
  progs+=("$out/bin/konform_cuda_bench")
fi
libs=("$b/impl/libtl_scalar.so" "$b/impl/libtl_kernels.so" "$b/impl/cuda/libtl_cuda.so")
cp "${libs[@]}" "$out/lib/"
# The shared libraries the programs and the backends load beyond what every
# Linux has (the C and C++ runtimes) and what the GPU machine brings (the CUDA
# driver; cuBLAS, which the benchmark dlopens from the CUDA toolkit).
for f in "${progs[@]}" "${libs[@]}"; do
  ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r dep; do
  case "$(basename "$dep")" in
    libc.so.* | libm.so.* | libdl.so.* | librt.so.* | libpthread.so.* | ld-linux* | libstdc++.so.* | libgcc_s.so.* | \
      libcuda.so.* | libcublas*.so.* | libtl_*) ;;
    *) cp -L "$dep" "$out/lib/" ;;
  esac
done
{
  echo "commit: $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) from $b"
  echo "cuda architectures: $(grep -o 'KONFORM_CUDA_ARCHITECTURES=[^ ]*' "$b/build.ninja" | head -1 | tr -d '\\"' | cut -d= -f2)"
  echo "benchmarks: $( ((bench)) && echo yes || echo "no (KONFORM_BENCH=OFF)")"
} >"$out/BUILD-INFO"

cat >"$out/konform" <<'EOF'
#!/bin/sh
# konform with this bundle's lib/ on the library path (its backends, libhwy).
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/konform" "$@"
EOF

cp "$root/ci/cuda-bundle-check.sh" "$out/check.sh"
chmod +x "$out/konform" "$out/check.sh"

size=$(du -sb "$out" | cut -f1)
echo "cuda-bundle: $out, $((size / 1024 / 1024)) MB ($size bytes): $(find "$out" -type f | wc -l) files"
if ((size >= limit)); then
  echo "cuda-bundle: $size bytes is over the 30 MB limit" >&2
  exit 1
fi
