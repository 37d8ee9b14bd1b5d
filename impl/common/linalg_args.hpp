// Argument validation of tinyllm/linalg.h and tinyllm/quant.h, shared by the
// scalar and simd backends: anything wrong becomes a tl_status with a
// message (impl::fail) before a byte is written.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "impl/common/status.hpp"
#include "tinyllm/linalg.h"

namespace konform::impl::linalg_args {

inline std::string str(int64_t v) { return std::to_string(v); }

// Each size >= 0, and the product of any two of them (the element count of
// every tensor of these ops: [M, K], [N, K], [M, N], ...) times 4 bytes fits
// an int64_t.
inline tl_status check_sizes(const char* fn, std::initializer_list<std::pair<const char*, int64_t>> sizes) {
  for (const auto& [name, v] : sizes)
    if (v < 0) return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + name + " = " + str(v) + " is negative");
  for (auto a = sizes.begin(); a != sizes.end(); ++a)
    for (auto b = a + 1; b != sizes.end(); ++b) {
      int64_t p;
      if (__builtin_mul_overflow(a->second, b->second, &p) || p > INT64_MAX / 4)
        return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + a->first + " * " + b->first +
                                                 " elements do not fit an int64_t byte count");
    }
  return TL_OK;
}

inline tl_status check_eps(const char* fn, float eps) {
  if (!(eps >= 0.0f) || std::isinf(eps))
    return fail(TL_ERR_INVALID_ARGUMENT,
                std::string(fn) + ": eps = " + std::to_string(eps) + " must be finite and >= 0");
  return TL_OK;
}

inline tl_status check_gelu(const char* fn, int gelu) {
  if (gelu != TL_FFN_GELU_ERF && gelu != TL_FFN_GELU_TANH)
    return fail(TL_ERR_INVALID_ARGUMENT,
                std::string(fn) + ": gelu = " + str(gelu) + " is neither TL_FFN_GELU_ERF (0) nor TL_FFN_GELU_TANH (1)");
  return TL_OK;
}

// FusedNormMatmul's arguments: sizes, eps as RmsNorm's, and a row to normalize over.
inline tl_status check_fused_norm_matmul(const char* fn, int64_t M, int64_t N, int64_t K, float eps) {
  if (tl_status s = check_sizes(fn, {{"M", M}, {"N", N}, {"K", K}})) return s;
  if (tl_status s = check_eps(fn, eps)) return s;
  if (K == 0) return fail(TL_ERR_SHAPE, std::string(fn) + ": K is 0 (no element to normalize over)");
  return TL_OK;
}

// A length that must be a whole number of blocks of `qk` values.
inline tl_status check_blocks(const char* fn, const char* name, int64_t k, int64_t qk) {
  if (k % qk != 0)
    return fail(TL_ERR_SHAPE,
                std::string(fn) + ": " + name + " = " + str(k) + " is not a multiple of the block length " + str(qk));
  return TL_OK;
}

}  // namespace konform::impl::linalg_args
