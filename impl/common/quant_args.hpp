// Argument validation of tinyllm/quant.h shared by the scalar and simd
// backends: sizes and block multiples (the values are checked by each
// backend as it reads them).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "impl/common/linalg_args.hpp"
#include "tinyllm/quant.h"

namespace konform::impl::quant_args {

// rows x k values of a format with blocks of qk values.
inline tl_status check_rows(const char* fn, int64_t rows, int64_t k, int64_t qk) {
  if (tl_status s = linalg_args::check_sizes(fn, {{"rows", rows}, {"k", k}})) return s;
  return linalg_args::check_blocks(fn, "k", k, qk);
}

// The quantized matmul: x [M, K], w N rows of K / qk blocks, y [M, N].
inline tl_status check_qmatmul(const char* fn, int64_t M, int64_t N, int64_t K, int64_t qk) {
  if (tl_status s = linalg_args::check_sizes(fn, {{"M", M}, {"N", N}, {"K", K}})) return s;
  return linalg_args::check_blocks(fn, "K", K, qk);
}

inline tl_status non_finite(const char* fn, int64_t index, float v) {
  return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": x[" + std::to_string(index) + "] = " + std::to_string(v) +
                                           " is not finite and cannot be quantized");
}

inline tl_status scale_overflow(const char* fn, int64_t block) {
  return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": the scale of block " + std::to_string(block) +
                                           " does not fit f16 (its values are too large for the format)");
}

// Refuses the first of n values that is not finite, before anything is quantized.
inline tl_status check_finite(const char* fn, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return non_finite(fn, i, x[i]);
  return TL_OK;
}

// Q8_0 (divisor 127) and Q4_0 (8): refuses the first block of 32 values whose
// scale |d| = max|x| / divisor would round to an f16 Inf (>= 65520), before
// anything is encoded.
inline tl_status check_block_maxima(const char* fn, const float* x, int64_t n, float divisor) {
  for (int64_t b = 0; b < n / 32; ++b) {
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) amax = std::fabs(x[32 * b + j]) > amax ? std::fabs(x[32 * b + j]) : amax;
    if (!(amax / divisor < 65520.0f)) return scale_overflow(fn, b);
  }
  return TL_OK;
}

// Refuses the first of `count` quantized blocks (of `bytes` each) whose f16
// scale d, or dmin where `two_scales` (Q4_K), came out Inf: checked on a
// scratch copy, so a refused call writes nothing.
inline tl_status check_block_scales(const char* fn, const uint8_t* blocks, int64_t count, int64_t bytes,
                                    bool two_scales) {
  for (int64_t b = 0; b < count; ++b) {
    const uint8_t* block = blocks + b * bytes;
    if ((block[1] & 0x7c) == 0x7c || (two_scales && (block[3] & 0x7c) == 0x7c)) return scale_overflow(fn, b);
  }
  return TL_OK;
}

// The q8x matmuls (x quantized too): the sizes, then x's values (finite),
// then, for Q8_0 and Q4_0 weights, each block of 32 values of x whose Q8_0
// scale would not fit f16.
inline tl_status check_qmatmul_q8x(const char* fn, const float* x, int64_t M, int64_t N, int64_t K, int64_t qk) {
  if (tl_status s = check_qmatmul(fn, M, N, K, qk)) return s;
  if (tl_status s = check_finite(fn, x, M * K)) return s;
  return qk == 32 ? check_block_maxima(fn, x, M * K, 127.0f) : TL_OK;
}

}  // namespace konform::impl::quant_args
