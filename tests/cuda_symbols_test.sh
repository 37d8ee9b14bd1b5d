#!/usr/bin/env bash
# libtl_cuda exports exactly the tl_* functions of its emulated build (the
# same .cu sources compiled for the CPU, tests/cuda_emulation) plus its probe
# tl_backend_unavailable, which the emulation leaves out; then it loads
# without a GPU and keeps the static CUDA runtime inside
# (konform_cuda_symbols_test). The docs' table of libtl_cuda's ops is derived
# from the emulated build (ci/op_tables.py): this is what keeps them equal.
#   usage: cuda_symbols_test.sh LIBTL_CUDA.so EMULATED.so SYMBOLS_TEST
set -u
cuda=${1:?usage: cuda_symbols_test.sh LIBTL_CUDA EMULATED SYMBOLS_TEST}
emulated=${2:?usage: cuda_symbols_test.sh LIBTL_CUDA EMULATED SYMBOLS_TEST}
symbols_test=${3:?usage: cuda_symbols_test.sh LIBTL_CUDA EMULATED SYMBOLS_TEST}
exported() { nm -D --defined-only "$1" | awk '$3 ~ /^tl_/ {print $3}' | sort; }
want=$( (exported "$emulated"; echo tl_backend_unavailable) | sort -u)
got=$(exported "$cuda")
if [[ "$got" != "$want" ]]; then
  echo "FAIL: the tl_* symbols of $cuda differ from its emulated build's (plus tl_backend_unavailable):"
  diff <(echo "$want") <(echo "$got") | sed 's/^</  only emulated:/; s/^>/  only libtl_cuda:/' | grep only
  exit 1
fi
echo "ok: $cuda exports the $(wc -l <<<"$got") tl_* symbols of its emulated build and its probe"
# Every host function has its device-pointer twin tl_X_dev and every twin its
# host function (tinyllm/cuda/stream.h); each cache table (f32, f16, bf16)
# has its device table (tl_kv_cache_api_v1: tl_kv_cache_dev_api_v1).
cache_tables='tl_kv_cache\(_[a-z0-9]*\)*_api_v1'
tables=$(grep -x "$cache_tables" <<<"$got" | grep -v '_dev_api_v1$')
host=$(grep -v '_dev$' <<<"$got" | grep -vx 'tl_last_error\|tl_backend_unavailable' | grep -vx "$cache_tables")
twins=$( (sed 's/$/_dev/' <<<"$host"; sed 's/_api_v1$/_dev_api_v1/' <<<"$tables") | sort)
if [[ "$(grep '_dev\(_api_v1\)\?$' <<<"$got" | sort)" != "$twins" ]]; then
  echo "FAIL: the host functions and their _dev twins differ:"
  diff <(echo "$twins") <(grep '_dev\(_api_v1\)\?$' <<<"$got" | sort) | sed 's/^</  no twin:/; s/^>/  no host function:/' | grep 'no '
  exit 1
fi
echo "ok: each of its $(wc -l <<<"$host") host functions has its _dev twin"
exec "$symbols_test" "$cuda"
