// The `scalar` backend of tinyllm/spatial.h: the float instantiation of
// reference/konform/reference/spatial.hpp behind the C signatures, with the
// same argument validation as libtl_kernels.
#pragma once

#include <cstdint>

#include "tinyllm/spatial.h"

namespace konform::scalar {

tl_status pixel_shuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r);
tl_status pixel_unshuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r);
tl_status patch_embed_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C, int64_t H,
                          int64_t W, int64_t D, int64_t p);
tl_status unpatchify_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p);

tl_status interpolate_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t H_out,
                          int64_t W_out, int32_t mode, int32_t align_corners);

}  // namespace konform::scalar
