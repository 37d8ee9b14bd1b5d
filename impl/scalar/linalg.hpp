// The `scalar` backend of tinyllm/linalg.h: the float instantiation of
// reference/konform/reference/linalg.hpp behind the C signatures, with the
// same argument validation as libtl_kernels.
#pragma once

#include <cstdint>

#include "tinyllm/linalg.h"

namespace konform::scalar {

tl_status matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K);
tl_status swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                         int64_t M, int64_t D, int64_t H);
tl_status geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                        int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu);
tl_status glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y, int64_t M,
                      int64_t D, int64_t H);
tl_status fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                           int64_t H);
tl_status fused_norm_matmul_f32(const float* x, const float* norm_w, const float* w, float* y, int64_t M, int64_t N,
                                int64_t K, float eps);

}  // namespace konform::scalar
