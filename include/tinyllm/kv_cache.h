/* tinyllm/kv_cache.h: the KV cache of spec/operations.txt §5 ("KV cache").
 *
 * A cache holds, per layer, K and V of shape [kv_heads, max_seq, head_dim],
 * row-major and contiguous. Positions 0 .. past_seq_len-1 are valid; the
 * rest are uninitialized and never read.
 *
 * One forward of s positions (s = 1 per decode step; any s for a prefill):
 *
 *   begin(cache, s)                 refuses TL_ERR_CONTEXT_OVERFLOW when
 *                                   past_seq_len + s > max_seq, before any
 *                                   write: no silent truncation
 *   for each layer:
 *     append_f32(cache, layer, k_new, v_new)    k_new, v_new: [kv_heads, s, head_dim]
 *     view_f32(cache, layer, &view)             K[:, 0:past+s, :], V likewise, as views
 *     ... attention of the layer reads the view ...
 *   commit(cache)                   past_seq_len += s, once, after every layer
 *                                   appended (TL_ERR_INVALID_ARGUMENT otherwise)
 *
 * reset(cache) sets past_seq_len = 0 and ends a forward in progress; it does
 * not zero memory. A cache is used by one thread at a time.
 *
 * The functions come as a table (as PJRT's C API does), so a backend library
 * exports one symbol for the whole lifecycle: tl_kv_cache_api_v1(). Every
 * function returning a tl_status writes nothing on failure and says why in
 * tl_last_error().
 */
#ifndef TINYLLM_KV_CACHE_H
#define TINYLLM_KV_CACHE_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_kv_cache tl_kv_cache; /* opaque, owned by the library */

/* A read-only view of one layer: element (h, t, d) of K is
 * k[h * head_stride + t * head_dim + d], for t < length. */
typedef struct tl_kv_view_f32 {
  const float* k;
  const float* v;
  int64_t length;      /* past_seq_len + s inside a forward after this layer appended; past_seq_len otherwise */
  int64_t head_stride; /* elements between heads: max_seq * head_dim */
} tl_kv_view_f32;

typedef struct tl_kv_cache_api {
  uint32_t abi_version; /* 1 */
  /* Allocates the whole cache up front. num_layers, kv_heads, head_dim and
   * max_seq >= 1, and the bytes 2 * num_layers * kv_heads * max_seq *
   * head_dim * 4 must fit in int64_t; *out = NULL on failure. */
  tl_status (*create)(int64_t num_layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out);
  void (*destroy)(tl_kv_cache* cache); /* NULL is a no-op */
  /* Starts a forward of s >= 1 positions. TL_ERR_CONTEXT_OVERFLOW when
   * past_seq_len + s > max_seq; TL_ERR_INVALID_ARGUMENT when s < 1 or a
   * forward is already in progress. */
  tl_status (*begin)(tl_kv_cache* cache, int64_t s);
  /* Writes positions past_seq_len .. past_seq_len+s-1 of `layer` from k_new
   * and v_new ([kv_heads, s, head_dim], contiguous). Once per layer per
   * forward; TL_ERR_INVALID_ARGUMENT outside a forward, for a layer out of
   * range or one already appended in this forward. */
  tl_status (*append_f32)(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new);
  /* The view of `layer` (see tl_kv_view_f32). Pointers stay valid until
   * destroy. TL_ERR_INVALID_ARGUMENT for a layer out of range. */
  tl_status (*view_f32)(const tl_kv_cache* cache, int64_t layer, tl_kv_view_f32* out);
  /* Ends the forward: past_seq_len += s. TL_ERR_INVALID_ARGUMENT outside a
   * forward or when a layer has not appended (nothing changes then). */
  tl_status (*commit)(tl_kv_cache* cache);
  /* past_seq_len = 0, no forward in progress; the memory is left as it is. */
  void (*reset)(tl_kv_cache* cache);
  int64_t (*past_seq_len)(const tl_kv_cache* cache);
} tl_kv_cache_api;

/* The library's cache functions; the table lives as long as the library. */
const tl_kv_cache_api* tl_kv_cache_api_v1(void);

/* The cache in f16 or bf16 (the spec's F16 KV cache: half the f32 cache's
 * bytes, ~1 GiB for an 8B model at 8k context). K and V are computed in f32
 * and stored in the dtype, as llama.cpp copies them into its f16 cache:
 * append_f32 takes f32 values and stores each rounded once to the dtype, to
 * nearest with ties to even (a NaN stays a NaN, f16 overflow is an
 * infinity: 65520 and up; subnormals kept); the view gives the stored bit
 * patterns. Everything else is tl_kv_cache_api's, rule for rule and refusal
 * for refusal, with the bytes 2 * num_layers * kv_heads * max_seq *
 * head_dim * 2 held to int64_t at create. A cache is used with the table
 * that created it. */
typedef struct tl_kv_view_half {
  const uint16_t* k; /* f16 or bf16 bit patterns, laid out as tl_kv_view_f32's */
  const uint16_t* v;
  int64_t length;
  int64_t head_stride;
} tl_kv_view_half;

typedef struct tl_kv_cache_half_api {
  uint32_t abi_version; /* 1 */
  tl_status (*create)(int64_t num_layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out);
  void (*destroy)(tl_kv_cache* cache);
  tl_status (*begin)(tl_kv_cache* cache, int64_t s);
  /* k_new, v_new: f32 [kv_heads, s, head_dim], each value rounded to the dtype. */
  tl_status (*append_f32)(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new);
  tl_status (*view_half)(const tl_kv_cache* cache, int64_t layer, tl_kv_view_half* out);
  tl_status (*commit)(tl_kv_cache* cache);
  void (*reset)(tl_kv_cache* cache);
  int64_t (*past_seq_len)(const tl_kv_cache* cache);
} tl_kv_cache_half_api;

const tl_kv_cache_half_api* tl_kv_cache_f16_api_v1(void);
const tl_kv_cache_half_api* tl_kv_cache_bf16_api_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_KV_CACHE_H */
