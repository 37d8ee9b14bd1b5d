// The `scalar` backend of tinyllm/quant.h: the float code of
// reference/konform/reference/quant.hpp behind the C signatures, with the
// same argument validation as libtl_kernels; Q4_K's encoder is the kernels'
// shared one (impl/common/quantize.hpp), the one libtl_cuda runs.
#pragma once

#include <cstdint>

#include "tinyllm/quant.h"

namespace konform::scalar {

tl_status quantize_q8_0_f32(const float* x, void* blocks, int64_t rows, int64_t k);
tl_status quantize_q4_0_f32(const float* x, void* blocks, int64_t rows, int64_t k);
tl_status quantize_q4_k_f32(const float* x, void* blocks, int64_t rows, int64_t k);
tl_status dequantize_q8_0_f32(const void* blocks, float* y, int64_t rows, int64_t k);
tl_status dequantize_q4_0_f32(const void* blocks, float* y, int64_t rows, int64_t k);
tl_status dequantize_q4_k_f32(const void* blocks, float* y, int64_t rows, int64_t k);
tl_status qmatmul_q8_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K);
tl_status qmatmul_q4_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K);
tl_status qmatmul_q4_k_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K);

}  // namespace konform::scalar
