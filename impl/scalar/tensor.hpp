// The `scalar` backend of tinyllm/tensor.h: the float instantiation of the
// oracle's templates (reference/konform/reference/tensor.hpp), behind the
// C signatures, refusing bad arguments with the oracle's own checks.
#pragma once

#include <cstdint>

#include "tinyllm/tensor.h"

namespace konform::scalar {

tl_status add_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                            const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank);
tl_status sub_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                            const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank);
tl_status mul_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                            const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank);
tl_status div_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                            const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank);
tl_status clamp_f32(const float* x, float* y, int64_t n, float lo, float hi);
tl_status nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf);
tl_status argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index);
tl_status transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y);
tl_status permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y);
tl_status reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                      int64_t new_rank);
tl_status concat_f32(const float* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                     float* y);
tl_status split_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                    int64_t count, float* const* ys);
tl_status chunk_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks, float* const* ys);

}  // namespace konform::scalar
