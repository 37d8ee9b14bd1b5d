#!/usr/bin/env bash
# check.sh of the bundle (ci/cuda-bundle.sh copies this file there): libtl_cuda
# on this machine's GPU, from the bundle's own files, in at most
# KONFORM_CHECK_SECONDS (default 480: an 8-minute device slot), each step under
# its own `timeout` (the budgets are caps; a step gets no more than what is
# left):
#   units       tests/konform_cuda_symbols_test, tests/konform_cuda_refusals_test
#               (no GPU needed)                                        10 s, 30 s
#   cuda        konform check --backend cuda, the whole catalog:
#               cuda.json, .xml, .html                                 110 s
#               Without a usable device this says NOT RUN with why, nothing
#               below runs, and check.sh exits 3.
#   cuda:device konform check --backend cuda:device (the _dev twins, device
#               pointers): cuda-device.json, .xml, .html               110 s
#   memcheck    compute-sanitizer memcheck: every op of the catalog, 3 cases,
#               no properties                                          60 s
#   racecheck   compute-sanitizer racecheck: the ops that reduce a line in
#               one block through shared memory, from the catalog: families
#               norm and attention, and the ops `konform list max` names
#               (Softmax, the argmaxes); 5 cases, no properties        45 s
#   benchmarks  bin/konform_cuda_bench, half a second of calls each:
#               cuda-bench.json                                        100 s
# Everything lands in REPORT_DIR (default ./reports), with each step's log.
# Options go to both whole-catalog checks (e.g. --cases 100).
# A summary ends the output: each step PASS, FAIL, ERROR or NOT RUN with why.
# Exit: 1 something failed, else 2 a command was refused (exit 2, bad usage),
# else 3 something was not run (no device, no compute-sanitizer, no time
# left, a benchmark not run), else 0.
#   usage: check.sh [konform check options]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "${REPORT_DIR:-reports}" || exit 2
reports=$(cd "${REPORT_DIR:-reports}" && pwd)
total=${KONFORM_CHECK_SECONDS:-480}
[[ $total =~ ^[0-9]+$ ]] || {
  echo "check.sh: KONFORM_CHECK_SECONDS=$total: expected whole seconds" >&2
  exit 2
}

# The CUDA toolkit's libraries (cuBLAS, which the benchmark dlopens): the
# bundle carries none of CUDA.
toolkit_lib=
nvcc_lib=$(command -v nvcc >/dev/null && dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")/lib64
for d in ${CUDA_HOME:+"$CUDA_HOME/lib64"} ${CUDA_PATH:+"$CUDA_PATH/lib64"} /usr/local/cuda/lib64 ${nvcc_lib:+"$nvcc_lib"}; do
  if [[ -d $d ]]; then
    toolkit_lib=$(cd "$d" && pwd)
    break
  fi
done
export LD_LIBRARY_PATH="$here/lib${toolkit_lib:+:$toolkit_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
konform=$here/bin/konform
lib=$here/lib/libtl_cuda.so

echo "check.sh: bundle $here ($(sed -n 's/^commit: //p' "$here/BUILD-INFO" 2>/dev/null)), reports in $reports," \
  "${total} s in all, CUDA toolkit libraries: ${toolkit_lib:-none found}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv

summary=()
failed=0 refused=0 not_run=0
note() { # VERDICT STEP WHY
  summary+=("$(printf '%-8s %-12s %s' "$1" "$2" "$3")")
  case $1 in
    FAIL) failed=1 ;;
    ERROR) refused=1 ;;
    "NOT RUN") not_run=1 ;;
  esac
}

# step NAME BUDGET LOG CMD...: CMD under `timeout`, its output shown and in
# LOG; sets rc (-1: no time left for it) and limit (the seconds it had).
step() {
  local name=$1 budget=$2 log=$3
  shift 3
  # timeout's grace before SIGKILL (10 s) comes out of what is left too.
  local left=$((total - SECONDS - 10))
  limit=$((budget < left ? budget : left))
  if ((limit < 10)); then
    rc=-1
    return
  fi
  echo "== $name (at most $limit s): $*"
  timeout -k 10 "$limit" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
}

# judge NAME LOG: the verdict of the last step from rc.
judge() {
  local name=$1 log=$2 why
  case $rc in
    -1) note "NOT RUN" "$name" "no time left of the ${total} s (KONFORM_CHECK_SECONDS)" ;;
    0) note PASS "$name" "(log: $log)" ;;
    1) note FAIL "$name" "findings (log: $log)" ;;
    2) note ERROR "$name" "exit 2, the command was refused (log: $log)" ;;
    3)
      why=$(grep -m1 'NOT RUN' "$log" | tr -s ' ' | cut -c1-200)
      note "NOT RUN" "$name" "${why:-exit 3} (log: $log)"
      ;;
    124 | 137) note "NOT RUN" "$name" "did not finish in its $limit s (log: $log)" ;;
    *) note FAIL "$name" "exit $rc (log: $log)" ;;
  esac
}

# judge_sanitizer NAME LOG: compute-sanitizer's verdict. konform's own exit 1
# under it (a mistrusted check at so few cases, a finding) is the
# whole-catalog check's business; an error the sanitizer reports fails.
judge_sanitizer() {
  local name=$1 log=$2
  if ((rc == 99)) || grep -Eq 'ERROR SUMMARY: [1-9]|\([1-9][0-9]* errors?' "$log"; then
    note FAIL "$name" "compute-sanitizer reported errors (log: $log)"
  elif ((rc == 0 || rc == 1)); then
    note PASS "$name" "no error from compute-sanitizer; konform exit $rc (log: $log)"
  else
    judge "$name" "$log"
  fi
}

finish() {
  echo
  echo "check.sh summary ($SECONDS s; reports in $reports):"
  printf '  %s\n' "${summary[@]}"
  if ((failed)); then
    exit 1
  elif ((refused)); then
    exit 2
  elif ((not_run)); then
    exit 3
  fi
  exit 0
}

step "symbols" 10 "$reports/units-symbols.log" "$here/tests/konform_cuda_symbols_test" "$lib"
judge "symbols" "$reports/units-symbols.log"
step "refusals" 30 "$reports/units-refusals.log" "$here/tests/konform_cuda_refusals_test" "$lib"
judge "refusals" "$reports/units-refusals.log"

step "cuda" 110 "$reports/cuda.log" "$konform" check --backend cuda --report "$reports/cuda.json" \
  --junit "$reports/cuda.xml" --html "$reports/cuda.html" "$@"
judge "cuda" "$reports/cuda.log"
if ((rc == 3)); then
  echo "check.sh: no usable CUDA device here (konform's NOT RUN above says why): the device steps are not run"
  for s in cuda:device memcheck racecheck benchmarks; do note "NOT RUN" "$s" "no usable CUDA device"; done
  finish
fi

step "cuda:device" 110 "$reports/cuda-device.log" "$konform" check --backend cuda:device \
  --report "$reports/cuda-device.json" --junit "$reports/cuda-device.xml" --html "$reports/cuda-device.html" "$@"
judge "cuda:device" "$reports/cuda-device.log"

sanitizer=$(command -v compute-sanitizer || true)
for d in ${CUDA_HOME:+"$CUDA_HOME"} /usr/local/cuda ${toolkit_lib:+"$toolkit_lib/.."}; do
  [[ -z $sanitizer && -x $d/bin/compute-sanitizer ]] && sanitizer=$d/bin/compute-sanitizer
done
if [[ -z $sanitizer ]]; then
  note "NOT RUN" memcheck "compute-sanitizer not found (PATH, CUDA_HOME, /usr/local/cuda)"
  note "NOT RUN" racecheck "compute-sanitizer not found (PATH, CUDA_HOME, /usr/local/cuda)"
else
  # Children too: konform runs every op in processes of its own.
  step memcheck 60 "$reports/memcheck.log" "$sanitizer" --tool memcheck --target-processes all --error-exitcode 99 \
    "$konform" check --backend cuda --cases 3 --no-properties --report "$reports/memcheck.json"
  judge_sanitizer memcheck "$reports/memcheck.log"
  # The ops named for a max, from the catalog (konform list starts each op
  # with "NAME  (SYMBOL, DTYPE, family F)", its details indented).
  max_ops=$("$konform" list max --backend cuda | awk '/^[^ ]+  \(tl_/ {print $1}' | paste -sd, -)
  step racecheck 45 "$reports/racecheck.log" "$sanitizer" --tool racecheck --target-processes all \
    --error-exitcode 99 "$konform" check --backend cuda --family norm,attention ${max_ops:+--op "$max_ops"} \
    --cases 5 --no-properties --report "$reports/racecheck.json"
  judge_sanitizer racecheck "$reports/racecheck.log"
fi

if [[ ! -x $here/bin/konform_cuda_bench ]]; then
  note "NOT RUN" benchmarks "this bundle has no konform_cuda_bench (built with KONFORM_BENCH=OFF)"
else
  # The benchmark starts nothing new past its deadline, so that a slow kernel
  # costs the benchmarks after it, not the whole JSON file.
  left=$((total - SECONDS - 10))
  cap=$((100 < left ? 100 : left))
  step benchmarks 100 "$reports/cuda-bench.log" "$here/bin/konform_cuda_bench" --konform_library="$lib" \
    --konform_seconds=0.5 --konform_deadline_s=$((cap > 50 ? cap - 40 : 10)) --benchmark_out="$reports/cuda-bench.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true
  if ((rc == 3)); then
    # Each benchmark not run is one line of its own, with why.
    while read -r line; do note "NOT RUN" benchmarks "${line#konform_cuda_bench: NOT RUN }"; done \
      < <(grep 'konform_cuda_bench: NOT RUN' "$reports/cuda-bench.log")
  else
    judge benchmarks "$reports/cuda-bench.log"
  fi
fi
finish
