// The `scalar` backend of tinyllm/conv.h: the float instantiation of
// reference/konform/reference/conv.hpp behind the C signatures, with the
// validation of impl/common/conv_args.hpp.
#pragma once

#include <cstdint>

#include "tinyllm/conv.h"

namespace konform::scalar {

tl_status conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in, int64_t C_out,
                   int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel, const int64_t* stride,
                   const int64_t* padding, const int64_t* dilation);
tl_status depthwise_conv2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                               const int64_t in_size[2], const int64_t kernel[2], const int64_t stride[2],
                               const int64_t padding[2], const int64_t dilation[2]);
tl_status conv_transpose2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                               int64_t C_out, int64_t groups, const int64_t in_size[2], const int64_t kernel[2],
                               const int64_t stride[2], const int64_t padding[2], const int64_t output_padding[2],
                               const int64_t dilation[2]);
tl_status causal_conv1d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                            int64_t C_out, int64_t groups, int64_t T, int64_t kernel, int64_t stride, int64_t dilation);
tl_status pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                   const int64_t* stride, const int64_t* padding, int mode);

}  // namespace konform::scalar
