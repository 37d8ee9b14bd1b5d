/* tinyllm/cuda/pos.h: the device-pointer twins of tinyllm/pos.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/pos.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_POS_H
#define TINYLLM_CUDA_POS_H

#include <stdint.h>

#include "tinyllm/pos.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_status tl_rope_cache_f32_dev(float* cache, int64_t max_seq, int64_t rot_dim, float base, tl_cuda_stream stream);
tl_status tl_rope_cache_f16_dev(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base, tl_cuda_stream stream);
tl_status tl_rope_cache_bf16_dev(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base, tl_cuda_stream stream);
int tl_rope_base_is_extreme_dev(float base, tl_cuda_stream stream);
tl_status tl_rope_apply_f32_dev(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                int64_t rot_dim, const float* cache, int64_t max_seq, int layout,
                                tl_cuda_stream stream);
tl_status tl_rope_apply_f16_dev(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                int64_t rot_dim, const float* cache, int64_t max_seq, int layout,
                                tl_cuda_stream stream);
tl_status tl_rope_apply_bf16_dev(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                 int64_t rot_dim, const float* cache, int64_t max_seq, int layout,
                                 tl_cuda_stream stream);
tl_status tl_multi_axis_rope_f32_dev(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                     int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout,
                                     tl_cuda_stream stream);
tl_status tl_multi_axis_rope_f16_dev(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H,
                                     int64_t D, int64_t n_axes, const int64_t* axis_dims, const float* axis_bases,
                                     int layout, tl_cuda_stream stream);
tl_status tl_multi_axis_rope_bf16_dev(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H,
                                      int64_t D, int64_t n_axes, const int64_t* axis_dims, const float* axis_bases,
                                      int layout, tl_cuda_stream stream);
tl_status tl_sinusoidal_embed_f32_dev(const float* t, float* y, int64_t n, int64_t dim, float max_period,
                                      float freq_shift, int layout, tl_cuda_stream stream);
tl_status tl_sinusoidal_embed_f16_dev(const uint16_t* t, uint16_t* y, int64_t n, int64_t dim, float max_period,
                                      float freq_shift, int layout, tl_cuda_stream stream);
tl_status tl_sinusoidal_embed_bf16_dev(const uint16_t* t, uint16_t* y, int64_t n, int64_t dim, float max_period,
                                       float freq_shift, int layout, tl_cuda_stream stream);
tl_status tl_token_embed_f32_dev(const float* table, const int32_t* ids, float* out, int64_t n, int64_t vocab,
                                 int64_t d, tl_cuda_stream stream);
tl_status tl_pos_embed_f32_dev(const float* table, const int32_t* pos, float* out, int64_t n, int64_t max_pos,
                               int64_t d, tl_cuda_stream stream);
tl_status tl_token_embed_f16_dev(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t n, int64_t vocab,
                                 int64_t d, tl_cuda_stream stream);
tl_status tl_token_embed_bf16_dev(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t n, int64_t vocab,
                                  int64_t d, tl_cuda_stream stream);
tl_status tl_pos_embed_f16_dev(const uint16_t* table, const int32_t* pos, uint16_t* out, int64_t n, int64_t max_pos,
                               int64_t d, tl_cuda_stream stream);
tl_status tl_pos_embed_bf16_dev(const uint16_t* table, const int32_t* pos, uint16_t* out, int64_t n, int64_t max_pos,
                                int64_t d, tl_cuda_stream stream);
tl_status tl_relative_pos_embedding_f32_dev(const float* table, const int32_t* q_pos, const int32_t* k_pos, float* bias,
                                            int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets,
                                            int64_t max_distance, int bidirectional, tl_cuda_stream stream);
tl_status tl_relative_pos_embedding_f16_dev(const uint16_t* table, const int32_t* q_pos, const int32_t* k_pos,
                                            uint16_t* bias, int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets,
                                            int64_t max_distance, int bidirectional, tl_cuda_stream stream);
tl_status tl_relative_pos_embedding_bf16_dev(const uint16_t* table, const int32_t* q_pos, const int32_t* k_pos,
                                             uint16_t* bias, int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets,
                                             int64_t max_distance, int bidirectional, tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_POS_H */
