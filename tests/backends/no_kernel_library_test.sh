#!/usr/bin/env bash
# konform's programs link no kernel library: every backend, built-in names
# included, is a library loaded by path (docs/design.md). The last argument
# is a control that does link libtl_kernels, so the check is seen to catch one.
#   usage: no_kernel_library_test.sh CONTROL PROGRAM...
set -u
control=${1:?usage: no_kernel_library_test.sh CONTROL PROGRAM...}
shift
failures=0
kernel_libraries() { ldd "$1" | grep -Eo 'libtl_[A-Za-z0-9_]*\.so[.0-9]*' | sort -u; }
if [[ -z $(kernel_libraries "$control") ]]; then
  echo "FAIL: the control $control shows no libtl_ library: the check cannot see one"
  failures=$((failures + 1))
fi
for program in "$@"; do
  found=$(kernel_libraries "$program")
  if [[ -n $found ]]; then
    echo "FAIL: $program links $(tr '\n' ' ' <<<"$found")"
    failures=$((failures + 1))
  else
    echo "ok:   $program links no libtl_ library"
  fi
done
exit $((failures > 0))
