#!/usr/bin/env bash
# Packs what the cuda check needs on a GPU machine that has none of the
# project's Debian libraries into one relocatable folder (docs/cuda.md):
#   konform          runs bin/konform with lib/ on the library path
#   bin/konform      the command, built here (with nvcc)
#   lib/             libtl_scalar, libtl_kernels (simd), libtl_cuda and the
#                    shared libraries they need beyond the C and C++ runtimes (libhwy)
#   tests/           konform_cuda_symbols_test (libtl_cuda loads without a GPU
#                    and keeps its CUDA runtime inside)
#   check.sh         the device check: the whole catalog on cuda (report, JUnit,
#                    HTML), compute-sanitizer's memcheck on a short sweep and
#                    racecheck on the reductions where it is installed
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
((build)) && cmake --build "$b" -j"$(nproc)" --target konform tl_scalar_backend tl_kernels tl_cuda konform_cuda_symbols_test

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/tests"
cp "$b/cli/konform" "$out/bin/"
libs=("$b/impl/libtl_scalar.so" "$b/impl/libtl_kernels.so" "$b/impl/cuda/libtl_cuda.so")
cp "${libs[@]}" "$out/lib/"
cp "$b/tests/konform_cuda_symbols_test" "$out/tests/"
# The shared libraries the command and the backends load beyond what every
# Linux has (the C and C++ runtimes; the CUDA driver comes with the GPU).
for f in "$out/bin/konform" "${libs[@]}"; do
  ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r dep; do
  case "$(basename "$dep")" in
    libc.so.* | libm.so.* | libdl.so.* | librt.so.* | libpthread.so.* | ld-linux* | libstdc++.so.* | libgcc_s.so.* | \
      libcuda.so.* | libtl_*) ;;
    *) cp -L "$dep" "$out/lib/" ;;
  esac
done

cat >"$out/konform" <<'EOF'
#!/bin/sh
# konform with this bundle's lib/ on the library path (its backends, libhwy).
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/konform" "$@"
EOF

cat >"$out/check.sh" <<'EOF'
#!/usr/bin/env bash
# The cuda backend on this machine's GPU, from this bundle: writes into
# REPORT_DIR (default ./cuda-reports): cuda.json, .xml, .html, and the
# sanitizers' logs. Exit: konform's (0 conforms, 1 a finding, 3 NOT RUN: no
# usable device), else the first failing step's.
#   usage: check.sh [konform check options, e.g. --cases 1000]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
reports=${REPORT_DIR:-$PWD/cuda-reports}
mkdir -p "$reports"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
"$here/tests/konform_cuda_symbols_test" "$here/lib/libtl_cuda.so" || exit 1
"$here/bin/konform" check --backend cuda --report "$reports/cuda.json" --junit "$reports/cuda.xml" \
  --html "$reports/cuda.html" "$@"
status=$?
echo "konform check --backend cuda: exit $status (0 conforms, 1 findings, 3 not run)"
[[ $status -eq 3 ]] && exit 3
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [[ -z $sanitizer ]]; then
  echo "compute-sanitizer: not found, memcheck and racecheck NOT RUN"
else
  # Children too: konform runs every case in its own process.
  "$sanitizer" --tool memcheck --target-processes all --error-exitcode 99 \
    "$here/bin/konform" check --backend cuda --cases 20 --report "$reports/memcheck.json" >"$reports/memcheck.log" 2>&1
  echo "memcheck: exit $? (log: $reports/memcheck.log)"
  "$sanitizer" --tool racecheck --target-processes all --error-exitcode 99 \
    "$here/bin/konform" check --backend cuda --cases 10 --op RmsNorm,LayerNorm,Softmax,Matmul,Sdpa,elementwise_argmax \
    --report "$reports/racecheck.json" >"$reports/racecheck.log" 2>&1
  echo "racecheck: exit $? (log: $reports/racecheck.log)"
fi
exit "$status"
EOF
chmod +x "$out/konform" "$out/check.sh"

size=$(du -sb "$out" | cut -f1)
echo "cuda-bundle: $out, $((size / 1024 / 1024)) MB ($size bytes): $(find "$out" -type f | wc -l) files"
if ((size >= limit)); then
  echo "cuda-bundle: $size bytes is over the 30 MB limit" >&2
  exit 1
fi
