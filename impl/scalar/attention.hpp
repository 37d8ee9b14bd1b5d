// The `scalar` backend of tinyllm/attention.h: the float instantiation of
// reference/konform/reference/attention.hpp behind the C signatures, with the
// same argument validation as libtl_kernels.
#pragma once

#include <cstdint>

#include "tinyllm/attention.h"

namespace konform::scalar {

tl_status sdpa_f32(const float* q, const float* k, const float* v, const float* mask, float* y, int64_t batch,
                   int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                   tl_attn_mask mask_kind);
tl_status flash_attention_f32(const float* q, const float* k, const float* v, const float* mask, float* y,
                              int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                              int64_t head_dim, int32_t causal, tl_attn_mask mask_kind);
tl_status sdpa_cross_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                         int64_t sq, int64_t se, int64_t head_dim);
tl_status sdpa_window_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                          int64_t seq, int64_t head_dim, int64_t window);
tl_status qk_norm_f32(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads, int64_t head_dim,
                      float eps);

}  // namespace konform::scalar
