// The argument checks of the validating activations (tinyllm/activations.h),
// shared by the scalar and simd backends so both refuse the same calls with
// the same words.
#pragma once

#include <cstdint>
#include <string>

#include "impl/common/status.hpp"
#include "tinyllm/activations.h"

namespace konform::impl {

// A tensor seen as [outer, length, inner] around one axis: the shape every
// softmax kernel loops over.
struct AxisSplit {
  int64_t outer = 1, length = 1, inner = 1;
};

// Checks Softmax's shape, rank and axis (rank 1..4, -rank <= axis < rank, no
// negative dim, a product of the non-zero dims that fits int64_t) and splits
// the shape at the axis. On failure, sets tl_last_error and returns its status.
inline tl_status split_at_axis(const int64_t* shape, int rank, int axis, AxisSplit* split) {
  if (rank < 1 || rank > 4)
    return fail(TL_ERR_INVALID_ARGUMENT, "softmax: rank must be 1..4, got " + std::to_string(rank));
  if (shape == nullptr) return fail(TL_ERR_INVALID_ARGUMENT, "softmax: shape is NULL");
  if (axis < -rank || axis >= rank)
    return fail(TL_ERR_INVALID_ARGUMENT, "softmax: axis " + std::to_string(axis) + " is outside [" +
                                             std::to_string(-rank) + ", " + std::to_string(rank) +
                                             ") for a tensor of rank " + std::to_string(rank));
  const int a = axis < 0 ? axis + rank : axis;
  AxisSplit s;
  int64_t nonzero = 1;  // the product of the non-zero dims bounds every partial product
  for (int k = 0; k < rank; ++k) {
    const int64_t dim = shape[k];
    if (dim < 0)
      return fail(TL_ERR_INVALID_ARGUMENT,
                  "softmax: shape[" + std::to_string(k) + "] = " + std::to_string(dim) + " is negative");
    if (dim != 0) {  // a zero dim makes the tensor empty, whatever the others are
      if (nonzero > INT64_MAX / dim)
        return fail(TL_ERR_INVALID_ARGUMENT, "softmax: the product of the shape's dims overflows int64_t");
      nonzero *= dim;
    }
    if (k < a) s.outer *= dim;
    else if (k == a) s.length = dim;
    else s.inner *= dim;
  }
  *split = s;
  return TL_OK;
}

// GeGlu's approximation must name a GELU.
inline tl_status check_gelu_approximation(int approximation) {
  if (approximation != TL_GELU_ERF && approximation != TL_GELU_TANH)
    return fail(TL_ERR_INVALID_ARGUMENT, "geglu: approximation must be TL_GELU_ERF (0) or TL_GELU_TANH (1), got " +
                                             std::to_string(approximation));
  return TL_OK;
}

}  // namespace konform::impl
