#!/usr/bin/env bash
# ci/cuda-bundle.sh makes a folder that runs from anywhere: packed from this
# build, under 30 MB, with the benchmark (where the build has it) and the
# unit tests that make sense on a device; copied elsewhere, every packed
# program and library resolves its shared libraries inside it (or is a base
# runtime, the CUDA driver or cuBLAS), its konform loads the backends from its
# own lib/ and checks scalar and simd, and its check.sh runs the device check
# from another directory (NOT RUN, exit 3, where there is no GPU).
#   usage: cuda_bundle_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=${1:?usage: cuda_bundle_test.sh SOURCE_DIR BUILD_DIR}
export KONFORM_BUILD_DIR=${2:?usage: cuda_bundle_test.sh SOURCE_DIR BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$src/ci/cuda-bundle.sh" --no-build "$tmp/packed"
cp -r "$tmp/packed" "$tmp/moved"
bundle=$tmp/moved
fail() {
  echo "FAIL: $*"
  exit 1
}
# The contents: the programs, the unit tests, the benchmark where this build
# has it (KONFORM_BENCH=ON), the size.
for f in bin/konform konform check.sh tests/konform_cuda_symbols_test tests/konform_cuda_refusals_test \
  lib/libtl_cuda.so lib/libtl_kernels.so lib/libtl_scalar.so BUILD-INFO; do
  [[ -e $bundle/$f ]] || fail "the bundle has no $f"
done
targets=$(ninja -C "$KONFORM_BUILD_DIR" -t targets all 2>/dev/null || true)
if grep -q '^konform_cuda_bench:' <<<"$targets"; then
  [[ -x $bundle/bin/konform_cuda_bench ]] || fail "the bundle has no bin/konform_cuda_bench"
  compgen -G "$bundle/lib/libbenchmark.so*" >/dev/null || fail "the bundle has no libbenchmark"
  bench=1
else
  echo "note: this build has no konform_cuda_bench (KONFORM_BENCH=OFF): the bundle is checked without it"
  grep -q '^benchmarks: no' "$bundle/BUILD-INFO" || fail "BUILD-INFO does not say the benchmarks are missing"
  bench=0
fi
compgen -G "$bundle/lib/libcublas*" >/dev/null && fail "the bundle carries cuBLAS, which the GPU machine's toolkit has"
size=$(du -sb "$bundle" | cut -f1)
((size < 30 * 1024 * 1024)) || fail "the bundle is $size bytes, not under 30 MB"
# Every library the bundle's programs and libraries need resolves inside it,
# or is a base runtime, the CUDA driver or cuBLAS.
for f in "$bundle"/bin/* "$bundle"/tests/* "$bundle"/lib/*.so*; do
  LD_LIBRARY_PATH="$bundle/lib" ldd "$f" | awk '$2 == "=>" {print $1, $3}' | while read -r name path; do
    case "$name" in
      libc.so.* | libm.so.* | libdl.so.* | librt.so.* | libpthread.so.* | libstdc++.so.* | libgcc_s.so.* | \
        libcuda.so.* | libcublas.so.* | libcublasLt.so.*) ;;
      *) [[ $path == "$bundle/lib/"* ]] || fail "$f needs $name from $path, outside the bundle" ;;
    esac
  done
done
cd /
"$bundle/konform" check --backend scalar --backend simd --op Relu,RmsNorm --cases 10 --report "$tmp/r.json" >/dev/null ||
  fail "the bundle's konform did not pass scalar and simd"
python3 - "$tmp/r.json" "$bundle" <<'PY' || fail "the bundle's konform loaded backends from outside it"
import json, sys
report, bundle = json.load(open(sys.argv[1])), sys.argv[2]
paths = [b.get("library", "") for b in report["backends"]]
sys.exit(0 if paths and all(p.startswith(bundle + "/") for p in paths) else 1)
PY
if ((bench)); then
  # The benchmarks are listed without a GPU; run, they say why not and exit 3.
  n=$("$bundle/bin/konform_cuda_bench" --benchmark_list_tests | wc -l)
  ((n >= 12)) || fail "konform_cuda_bench lists $n benchmarks"
  set +e
  why=$(LD_LIBRARY_PATH="$bundle/lib" "$bundle/bin/konform_cuda_bench" --konform_library="$bundle/lib/libtl_cuda.so" 2>&1)
  rc=$?
  set -e
  if [[ $rc -eq 3 ]]; then
    grep -q "NOT RUN" <<<"$why" || fail "konform_cuda_bench exited 3 without saying NOT RUN"
  elif [[ $rc -ne 0 ]]; then
    fail "konform_cuda_bench exited $rc: $why"
  fi
fi
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
set +e
out=$("$bundle/check.sh" --op Relu --cases 3 2>&1)
rc=$?
set -e
echo "$out" | tail -9
if [[ $rc -eq 3 ]]; then
  grep -q "no usable CUDA device" <<<"$out" || fail "check.sh exited 3 without saying there is no usable device"
  grep -Eq "NOT RUN +benchmarks" <<<"$out" || fail "check.sh's summary does not list the benchmarks NOT RUN"
elif [[ $rc -ne 0 ]]; then
  fail "check.sh exited $rc"
fi
grep -Eq "PASS +symbols" <<<"$out" || fail "check.sh did not pass konform_cuda_symbols_test"
grep -Eq "PASS +refusals" <<<"$out" || fail "check.sh did not pass konform_cuda_refusals_test"
[[ -s $tmp/elsewhere/reports/cuda.json ]] || fail "check.sh wrote no reports/cuda.json where it was started"
# ci/cuda-check.sh given the bundle runs its check.sh, with its exit status.
set +e
REPORT_DIR=$tmp/via-cuda-check bash "$src/ci/cuda-check.sh" --bundle "$bundle" --op Relu --cases 3 >"$tmp/cuda-check.log" 2>&1
rc2=$?
set -e
[[ $rc2 -eq $rc ]] || fail "ci/cuda-check.sh --bundle exited $rc2, check.sh $rc: $(tail -3 "$tmp/cuda-check.log")"
[[ -s $tmp/via-cuda-check/cuda.json ]] || fail "ci/cuda-check.sh --bundle wrote no report into REPORT_DIR"
echo "ok: the bundle ($(du -sh "$bundle" | cut -f1)) runs from $bundle"
