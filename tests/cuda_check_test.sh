#!/usr/bin/env bash
# konform check --backend cuda: passes only where a CUDA device ran every
# kernel and it conformed. Without a usable device konform says NOT RUN and
# exits 3: this test then exits 77, which ctest reports as skipped (never
# passed).
#   usage: cuda_check_test.sh KONFORM REPORT [CHECK OPTIONS...]
set -u
konform=${1:?usage: cuda_check_test.sh KONFORM REPORT [CHECK OPTIONS...]}
report=${2:?}
shift 2
"$konform" check --backend cuda --report "$report" "$@"
rc=$?
if [[ $rc -eq 3 ]]; then
  echo "SKIPPED: the cuda backend cannot run here (see NOT RUN above)"
  exit 77
fi
exit $rc
