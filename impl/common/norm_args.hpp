// Argument validation of tinyllm/norm.h, shared by the scalar and simd
// backends: shapes are checked and split into the extents a kernel loops over,
// and anything wrong becomes a tl_status with a message (impl::fail).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "impl/common/status.hpp"
#include "tinyllm/norm.h"

namespace konform::impl {

// The layouts of the norm ops, as the loops see them.
struct RowsShape {  // [..., D]: rows x d
  int64_t rows = 0, d = 0;
};
struct ChannelShape {  // [N, C, spatial...]: n x c x s
  int64_t n = 0, c = 0, s = 0;
};
struct SampleShape {  // [B, ..., D]: batch x tokens x d
  int64_t batch = 0, tokens = 0, d = 0;
};

namespace norm_args {

inline std::string str(int64_t v) { return std::to_string(v); }

// min_ndim <= ndim <= TL_NORM_MAX_DIMS, no negative dimension, and the byte
// count of the tensor fits an int64_t.
inline tl_status check_shape(const char* fn, const int64_t* shape, int32_t ndim, int32_t min_ndim) {
  if (ndim < min_ndim || ndim > TL_NORM_MAX_DIMS)
    return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": ndim = " + str(ndim) + " is outside [" + str(min_ndim) +
                                             ", " + str(TL_NORM_MAX_DIMS) + "]");
  if (shape == nullptr) return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": shape is NULL");
  // The product of the non-zero dimensions must fit: then every partial
  // product the loops form (rows, spatial, group sizes) fits too.
  int64_t elements = 1;
  bool overflow = false;
  for (int32_t k = 0; k < ndim; ++k) {
    if (shape[k] < 0)
      return fail(TL_ERR_INVALID_ARGUMENT,
                  std::string(fn) + ": shape[" + str(k) + "] = " + str(shape[k]) + " is negative");
    if (shape[k] > 0) overflow = overflow || __builtin_mul_overflow(elements, shape[k], &elements);
  }
  if (overflow || elements > INT64_MAX / static_cast<int64_t>(sizeof(float)))
    return fail(TL_ERR_INVALID_ARGUMENT,
                std::string(fn) + ": the shape's dimensions multiply past what an int64_t byte count holds");
  return TL_OK;
}

inline tl_status check_eps(const char* fn, float eps) {
  if (!(eps >= 0.0f) || std::isinf(eps))
    return fail(TL_ERR_INVALID_ARGUMENT,
                std::string(fn) + ": eps = " + std::to_string(eps) + " must be finite and >= 0");
  return TL_OK;
}

inline int64_t product(const int64_t* shape, int32_t begin, int32_t end) {
  int64_t p = 1;
  for (int32_t k = begin; k < end; ++k) p *= shape[k];
  return p;
}

}  // namespace norm_args

// [..., D], 1 <= ndim, D >= 1.
inline tl_status check_rows(const char* fn, const int64_t* shape, int32_t ndim, float eps, RowsShape* out) {
  using namespace norm_args;
  if (tl_status s = check_shape(fn, shape, ndim, 1)) return s;
  if (tl_status s = check_eps(fn, eps)) return s;
  if (shape[ndim - 1] == 0)
    return fail(TL_ERR_SHAPE, std::string(fn) + ": the last dimension D is 0 (no element to normalize over)");
  out->rows = product(shape, 0, ndim - 1);
  out->d = shape[ndim - 1];
  return TL_OK;
}

// [N, C, spatial...], 2 <= ndim. `need_spatial`: the statistics are taken
// over the spatial positions, so there must be at least one.
inline tl_status check_channels(const char* fn, const int64_t* shape, int32_t ndim, float eps, bool need_spatial,
                                ChannelShape* out) {
  using namespace norm_args;
  if (tl_status s = check_shape(fn, shape, ndim, 2)) return s;
  if (tl_status s = check_eps(fn, eps)) return s;
  out->n = shape[0];
  out->c = shape[1];
  out->s = product(shape, 2, ndim);
  if (need_spatial && out->s == 0)
    return fail(TL_ERR_SHAPE, std::string(fn) + ": a spatial dimension is 0 (no element to normalize over)");
  return TL_OK;
}

// GroupNorm: as check_channels, and num_groups >= 1 dividing C >= 1.
inline tl_status check_groups(const char* fn, const int64_t* shape, int32_t ndim, int64_t num_groups, float eps,
                              ChannelShape* out) {
  using namespace norm_args;
  if (tl_status s = check_channels(fn, shape, ndim, eps, true, out)) return s;
  if (num_groups < 1)
    return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": num_groups = " + str(num_groups) + " must be >= 1");
  if (out->c == 0) return fail(TL_ERR_SHAPE, std::string(fn) + ": C is 0 (no channel to group)");
  if (out->c % num_groups != 0)
    return fail(TL_ERR_SHAPE,
                std::string(fn) + ": num_groups = " + str(num_groups) + " does not divide C = " + str(out->c));
  return TL_OK;
}

// [B, ..., D], 2 <= ndim, D >= 1; scale and shift are [B, D].
inline tl_status check_samples(const char* fn, const int64_t* shape, int32_t ndim, float eps, SampleShape* out) {
  using namespace norm_args;
  if (tl_status s = check_shape(fn, shape, ndim, 2)) return s;
  if (tl_status s = check_eps(fn, eps)) return s;
  if (shape[ndim - 1] == 0)
    return fail(TL_ERR_SHAPE, std::string(fn) + ": the last dimension D is 0 (no element to normalize over)");
  out->batch = shape[0];
  out->tokens = product(shape, 1, ndim - 1);
  out->d = shape[ndim - 1];
  return TL_OK;
}

}  // namespace konform::impl
