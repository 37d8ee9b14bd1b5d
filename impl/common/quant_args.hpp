// Argument validation of tinyllm/quant.h shared by the scalar and simd
// backends: sizes and block multiples (the values are checked by each
// backend as it reads them).
#pragma once

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

}  // namespace konform::impl::quant_args
