/* tinyllm/cuda/activations.h: the device-pointer twins of tinyllm/activations.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/activations.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_ACTIVATIONS_H
#define TINYLLM_CUDA_ACTIVATIONS_H

#include <stdint.h>

#include "tinyllm/activations.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

void tl_silu_f32_dev(const float* x, float* y, int64_t n, tl_cuda_stream stream);
void tl_gelu_erf_f32_dev(const float* x, float* y, int64_t n, tl_cuda_stream stream);
void tl_gelu_tanh_f32_dev(const float* x, float* y, int64_t n, tl_cuda_stream stream);
void tl_relu_f32_dev(const float* x, float* y, int64_t n, tl_cuda_stream stream);
void tl_leaky_relu_f32_dev(const float* x, float* y, int64_t n, float alpha, tl_cuda_stream stream);
void tl_prelu_f32_dev(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner,
                      tl_cuda_stream stream);
void tl_sigmoid_f32_dev(const float* x, float* y, int64_t n, tl_cuda_stream stream);
void tl_tanh_f32_dev(const float* x, float* y, int64_t n, tl_cuda_stream stream);
void tl_silu_f16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_silu_bf16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_gelu_erf_f16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_gelu_erf_bf16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_gelu_tanh_f16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_gelu_tanh_bf16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_relu_f16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_relu_bf16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_leaky_relu_f16_dev(const uint16_t* x, uint16_t* y, int64_t n, float alpha, tl_cuda_stream stream);
void tl_leaky_relu_bf16_dev(const uint16_t* x, uint16_t* y, int64_t n, float alpha, tl_cuda_stream stream);
void tl_sigmoid_f16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_sigmoid_bf16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_tanh_f16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_tanh_bf16_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_prelu_f16_dev(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels,
                      int64_t inner, tl_cuda_stream stream);
void tl_prelu_bf16_dev(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels,
                       int64_t inner, tl_cuda_stream stream);
tl_status tl_softmax_f32_dev(const float* x, float* y, const int64_t* shape, int rank, int axis, tl_cuda_stream stream);
tl_status tl_softmax_f16_dev(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis,
                             tl_cuda_stream stream);
tl_status tl_softmax_bf16_dev(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis,
                              tl_cuda_stream stream);
void tl_swiglu_f32_dev(const float* gate, const float* up, float* y, int64_t n, tl_cuda_stream stream);
tl_status tl_geglu_f32_dev(const float* gate, const float* up, float* y, int64_t n, int approximation,
                           tl_cuda_stream stream);
void tl_glu_f32_dev(const float* gate, const float* up, float* y, int64_t n, tl_cuda_stream stream);
void tl_swiglu_f16_dev(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_swiglu_bf16_dev(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, tl_cuda_stream stream);
tl_status tl_geglu_f16_dev(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation,
                           tl_cuda_stream stream);
tl_status tl_geglu_bf16_dev(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation,
                            tl_cuda_stream stream);
void tl_glu_f16_dev(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_glu_bf16_dev(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_ACTIVATIONS_H */
