/* tinyllm/cuda/conv.h: the device-pointer twins of tinyllm/conv.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/conv.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_CONV_H
#define TINYLLM_CUDA_CONV_H

#include <stdint.h>

#include "tinyllm/conv.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_status tl_conv_f32_dev(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                          int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel,
                          const int64_t* stride, const int64_t* padding, const int64_t* dilation,
                          tl_cuda_stream stream);
tl_status tl_depthwise_conv2d_f32_dev(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                                      const int64_t in_size[2], const int64_t kernel[2], const int64_t stride[2],
                                      const int64_t padding[2], const int64_t dilation[2], tl_cuda_stream stream);
tl_status tl_conv_transpose2d_f32_dev(const float* x, const float* w, const float* bias, float* y, int64_t B,
                                      int64_t C_in, int64_t C_out, int64_t groups, const int64_t in_size[2],
                                      const int64_t kernel[2], const int64_t stride[2], const int64_t padding[2],
                                      const int64_t output_padding[2], const int64_t dilation[2],
                                      tl_cuda_stream stream);
tl_status tl_causal_conv1d_f32_dev(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                                   int64_t C_out, int64_t groups, int64_t T, int64_t kernel, int64_t stride,
                                   int64_t dilation, tl_cuda_stream stream);
tl_status tl_pool_f32_dev(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2],
                          const int64_t kernel[2], const int64_t* stride, const int64_t* padding, int mode,
                          tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_CONV_H */
