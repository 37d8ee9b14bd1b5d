// The `scalar` backend of tinyllm/pos.h: the float instantiation of
// reference/konform/reference/pos.hpp behind the same signatures, with the
// arguments validated first (impl/common/pos_args.hpp).
#pragma once

#include <cstdint>

#include "tinyllm/pos.h"

namespace konform::scalar {

tl_status rope_cache_f32(float* cache, int64_t max_seq, int64_t rot_dim, float base);
tl_status rope_apply_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t rot_dim,
                         const float* cache, int64_t max_seq, int layout);
tl_status multi_axis_rope_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                              int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout);
tl_status sinusoidal_embed_f32(const float* t, float* y, int64_t n, int64_t dim, float max_period, float freq_shift,
                               int layout);
tl_status token_embed_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t vocab, int64_t d);
tl_status pos_embed_f32(const float* table, const int32_t* pos, float* out, int64_t n, int64_t max_pos, int64_t d);
tl_status relative_pos_embedding_f32(const float* table, const int32_t* q_pos, const int32_t* k_pos, float* bias,
                                     int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                     int bidirectional);

}  // namespace konform::scalar
