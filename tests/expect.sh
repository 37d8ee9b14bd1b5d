# Sourced by the command-line tests: run_expect, expect and fail, which count
# mismatches in $failures.

# fail MESSAGE: one more failure, said.
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run_expect STATUS REGEX -- COMMAND...: COMMAND exits STATUS and its output
# (stdout and stderr together) matches the extended regex REGEX.
run_expect() {
  local status=$1 regex=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -ne $status ]]; then
    echo "FAIL: $* exited $rc, expected $status; output:"
    echo "$out" | sed 's/^/    /' | head -20
    failures=$((failures + 1))
  elif ! grep -Eq -- "$regex" <<<"$out"; then
    echo "FAIL: $* exited $rc as expected but its output does not match /$regex/:"
    echo "$out" | sed 's/^/    /' | head -20
    failures=$((failures + 1))
  else
    echo "ok:   $* -> $rc"
  fi
}

# expect STATUS REGEX -- ARGS...: the same for konform ARGS ($konform).
expect() { run_expect "$1" "$2" -- "$konform" "${@:4}"; }
