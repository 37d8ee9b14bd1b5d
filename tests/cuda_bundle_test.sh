#!/usr/bin/env bash
# ci/cuda-bundle.sh makes a folder that runs from anywhere: packed from this
# build, under 30 MB, copied elsewhere, its konform loads the backends from
# its own lib/ with nothing outside it but the C and C++ runtimes, checks
# scalar and simd, and its check.sh runs the cuda check (NOT RUN, exit 3,
# where there is no GPU).
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
# Every library the bundle's files need resolves inside it or is a base runtime.
for f in "$bundle/bin/konform" "$bundle"/lib/*.so*; do
  LD_LIBRARY_PATH="$bundle/lib" ldd "$f" | awk '$2 == "=>" {print $1, $3}' | while read -r name path; do
    case "$name" in
      libc.so.* | libm.so.* | libdl.so.* | librt.so.* | libpthread.so.* | libstdc++.so.* | libgcc_s.so.*) ;;
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
set +e
out=$(REPORT_DIR="$tmp/reports" "$bundle/check.sh" --op Relu --cases 3 2>&1)
rc=$?
set -e
echo "$out" | tail -3
if [[ $rc -eq 3 ]]; then
  grep -q "not run" <<<"$out" || fail "check.sh exited 3 without saying NOT RUN"
elif [[ $rc -ne 0 ]]; then
  fail "check.sh exited $rc"
fi
[[ -s $tmp/reports/cuda.json ]] || fail "check.sh wrote no report"
echo "ok: the bundle ($(du -sh "$bundle" | cut -f1)) runs from $bundle"
