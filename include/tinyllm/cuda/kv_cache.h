/* tinyllm/cuda/kv_cache.h: libtl_cuda's KV cache with device pointers.
 *
 * The table of tinyllm/kv_cache.h, the same functions with the same
 * semantics and refusals, except that append_f32 reads device memory and
 * enqueues its copies on `stream` (returning before they are done), and
 * view_f32 gives device pointers (no host copy is kept). A cache created by
 * this table is used with this table only. */
#ifndef TINYLLM_CUDA_KV_CACHE_H
#define TINYLLM_CUDA_KV_CACHE_H

#include <stdint.h>

#include "tinyllm/kv_cache.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_kv_cache_dev_api {
  uint32_t abi_version; /* 1 */
  tl_status (*create)(int64_t num_layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out);
  void (*destroy)(tl_kv_cache* cache); /* waits for nothing: synchronize the streams that append first */
  tl_status (*begin)(tl_kv_cache* cache, int64_t s);
  /* k_new_dev, v_new_dev: device [kv_heads, s, head_dim]. */
  tl_status (*append_f32)(tl_kv_cache* cache, int64_t layer, const float* k_new_dev, const float* v_new_dev,
                          tl_cuda_stream stream);
  /* out->k, out->v: device pointers, valid until destroy. */
  tl_status (*view_f32)(const tl_kv_cache* cache, int64_t layer, tl_kv_view_f32* out);
  tl_status (*commit)(tl_kv_cache* cache);
  void (*reset)(tl_kv_cache* cache);
  int64_t (*past_seq_len)(const tl_kv_cache* cache);
} tl_kv_cache_dev_api;

/* The library's device cache functions; the table lives as long as the library. */
const tl_kv_cache_dev_api* tl_kv_cache_dev_api_v1(void);

/* The f16 and bf16 caches of tinyllm/kv_cache.h with device pointers: append_f32
 * reads device f32 and rounds on the device (to nearest, ties to even),
 * view_half gives device pointers to the stored bit patterns. */
typedef struct tl_kv_cache_half_dev_api {
  uint32_t abi_version; /* 1 */
  tl_status (*create)(int64_t num_layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out);
  void (*destroy)(tl_kv_cache* cache);
  tl_status (*begin)(tl_kv_cache* cache, int64_t s);
  tl_status (*append_f32)(tl_kv_cache* cache, int64_t layer, const float* k_new_dev, const float* v_new_dev,
                          tl_cuda_stream stream);
  tl_status (*view_half)(const tl_kv_cache* cache, int64_t layer, tl_kv_view_half* out);
  tl_status (*commit)(tl_kv_cache* cache);
  void (*reset)(tl_kv_cache* cache);
  int64_t (*past_seq_len)(const tl_kv_cache* cache);
} tl_kv_cache_half_dev_api;

const tl_kv_cache_half_dev_api* tl_kv_cache_f16_dev_api_v1(void);
const tl_kv_cache_half_dev_api* tl_kv_cache_bf16_dev_api_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_KV_CACHE_H */
