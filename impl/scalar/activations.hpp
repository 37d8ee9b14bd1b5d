// The `scalar` backend of tinyllm/activations.h: the float instantiation of
// the oracle templates (reference/konform/reference/activations.hpp), behind
// the C signatures, in namespace konform::scalar.
#pragma once

#include <cstdint>

#include "tinyllm/status.h"

namespace konform::scalar {

void silu_f32(const float* x, float* y, int64_t n);
void gelu_erf_f32(const float* x, float* y, int64_t n);
void gelu_tanh_f32(const float* x, float* y, int64_t n);
void relu_f32(const float* x, float* y, int64_t n);
void leaky_relu_f32(const float* x, float* y, int64_t n, float alpha);
void prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner);
void sigmoid_f32(const float* x, float* y, int64_t n);
void tanh_f32(const float* x, float* y, int64_t n);
tl_status softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis);
void swiglu_f32(const float* gate, const float* up, float* y, int64_t n);
tl_status geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation);
void glu_f32(const float* gate, const float* up, float* y, int64_t n);

}  // namespace konform::scalar
