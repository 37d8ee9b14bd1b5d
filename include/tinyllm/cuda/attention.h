/* tinyllm/cuda/attention.h: the device-pointer twins of tinyllm/attention.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/attention.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_ATTENTION_H
#define TINYLLM_CUDA_ATTENTION_H

#include <stdint.h>

#include "tinyllm/attention.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_status tl_sdpa_f32_dev(const float* q, const float* k, const float* v, const float* mask, float* y, int64_t batch,
                          int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                          tl_attn_mask mask_kind, tl_cuda_stream stream);
tl_status tl_flash_attention_f32_dev(const float* q, const float* k, const float* v, const float* mask, float* y,
                                     int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                                     int64_t head_dim, int32_t causal, tl_attn_mask mask_kind, tl_cuda_stream stream);
tl_status tl_flash_attention_f16_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                                     uint16_t* y, int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq,
                                     int64_t sk, int64_t head_dim, int32_t causal, tl_attn_mask mask_kind,
                                     tl_cuda_stream stream);
tl_status tl_flash_attention_bf16_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                                      uint16_t* y, int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq,
                                      int64_t sk, int64_t head_dim, int32_t causal, tl_attn_mask mask_kind,
                                      tl_cuda_stream stream);
tl_status tl_sdpa_cross_f32_dev(const float* q, const float* k, const float* v, float* y, int64_t batch,
                                int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim, tl_cuda_stream stream);
tl_status tl_sdpa_window_f32_dev(const float* q, const float* k, const float* v, float* y, int64_t batch,
                                 int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window,
                                 tl_cuda_stream stream);
tl_status tl_sdpa_f16_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                          int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,
                          int32_t causal, tl_attn_mask mask_kind, tl_cuda_stream stream);
tl_status tl_sdpa_bf16_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                           int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,
                           int32_t causal, tl_attn_mask mask_kind, tl_cuda_stream stream);
tl_status tl_sdpa_cross_f16_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                                int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim, tl_cuda_stream stream);
tl_status tl_sdpa_cross_bf16_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                                 int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim, tl_cuda_stream stream);
tl_status tl_sdpa_window_f16_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                                 int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window,
                                 tl_cuda_stream stream);
tl_status tl_sdpa_window_bf16_dev(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                                  int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window,
                                  tl_cuda_stream stream);
tl_status tl_qk_norm_f32_dev(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads,
                             int64_t head_dim, float eps, tl_cuda_stream stream);
tl_status tl_qk_norm_f16_dev(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                             int64_t head_dim, float eps, tl_cuda_stream stream);
tl_status tl_qk_norm_bf16_dev(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                              int64_t head_dim, float eps, tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_ATTENTION_H */
