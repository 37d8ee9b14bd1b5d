// The `scalar` backend: the float instantiation of the oracle templates,
// behind the signatures of tinyllm/elementwise.h.
#pragma once

#include <cstdint>

namespace konform::scalar {

void rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps);
void rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
              float attn_scaling, int layout);
void silu_mul_f32(const float* gate, const float* up, float* y, int64_t n);
void embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d);
void add_f32(const float* a, const float* b, float* y, int64_t n);
int32_t argmax_f32(const float* x, int64_t n);

}  // namespace konform::scalar
