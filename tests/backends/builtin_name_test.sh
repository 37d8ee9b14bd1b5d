#!/usr/bin/env bash
# A built-in name is only a default path: loaded as `cuda` through
# KONFORM_CUDA_LIBRARY, a library's own tl_last_error is what konform reads.
#   usage: builtin_name_test.sh KONFORM SILENT SCALAR CLAMP_REFUSES_VALID
# SILENT: the scalar kernels with a tl_last_error that has no words;
# SCALAR: libtl_scalar.so; CLAMP_REFUSES_VALID: a Clamp that refuses valid
# calls past 100 elements, saying so.
set -u
konform=${1:?usage: builtin_name_test.sh KONFORM SILENT SCALAR CLAMP_REFUSES_VALID}
silent=${2:?}
scalar=${3:?}
refuses=${4:?}
failures=0
source "$(dirname "$0")/../expect.sh"
as_cuda() { local lib=$1; shift; env KONFORM_CUDA_LIBRARY="$lib" "$konform" "$@"; }

# Refusals without words fail the refusal property under the name cuda ...
run_expect 1 'refused_with_a_message' -- as_cuda "$silent" check --backend cuda --op Clamp \
  --property refused_with_a_message --property-runs 5
# ... and the same kernels with their words pass it.
run_expect 0 '^PASS +Clamp +cuda ' -- as_cuda "$scalar" check --backend cuda --op Clamp \
  --property refused_with_a_message --property-runs 5
# A valid call refused: the status and the library's own words come first.
run_expect 1 'matches_oracle: returned status 1 \(TL_ERR_INVALID_ARGUMENT\) for a valid case: "tl_clamp_f32: this library takes at most 100 elements"' \
  -- as_cuda "$refuses" check --backend cuda --op Clamp --cases 40 --no-properties
# A name whose library is missing says where it looked.
run_expect 2 "backend 'simd': its library libtl_kernels.so is missing|cannot load backend library '/nonexistent/libtl_kernels.so': no such file" \
  -- env KONFORM_SIMD_LIBRARY=/nonexistent/libtl_kernels.so "$konform" check --backend simd --op elementwise_add
exit $((failures > 0))
