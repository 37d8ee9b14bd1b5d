/* tinyllm/attention.h: the attention ops of spec/operations.txt section 5
 * (Sdpa, SdpaCross, SdpaWindow, FlashAttention) and the per-head QK-norm of
 * its QK-norm part.
 *
 * Conventions (as tinyllm/elementwise.h): float32 tensors, contiguous and
 * row-major; sizes are int64_t. No output may overlap an input.
 *   q: [B, num_heads, Sq, head_dim]     k, v: [B, kv_heads, Sk, head_dim]
 *   y: [B, num_heads, Sq, head_dim]
 *
 * Every function validates its sizes and parameters and returns a tl_status
 * (tinyllm/status.h): on anything but TL_OK it has written nothing and
 * tl_last_error() says why. Data pointers are the caller's to get right.
 *   TL_ERR_INVALID_ARGUMENT  a negative size, num_heads or kv_heads < 1, a
 *                            tensor whose byte count does not fit an int64_t,
 *                            an unknown mask kind, eps negative or not finite,
 *                            window < 1
 *   TL_ERR_SHAPE             num_heads % kv_heads != 0 (GQA needs a whole
 *                            number of query heads per KV head), head_dim == 0,
 *                            Sk == 0 with Sq > 0 (a softmax over no key), a
 *                            sequence that is not a whole number of windows
 * B == 0 or Sq == 0 writes nothing and is TL_OK.
 *
 * Numerics (spec §5): scores = (q . k) * (1 / sqrt(head_dim)), the scale
 * multiplied after the dot product; the causal mask adds -1e4 (never -inf) to
 * a masked score, then an additive mask adds its element; softmax subtracts
 * the row's max before exp; y = probs @ v. A fully masked row is therefore a
 * softmax over scores all near -1e4: finite, never NaN.
 *
 * Causal mask with Sq != Sk: the queries are the LAST Sq positions of the Sk
 * keys (a decode step after a KV cache of Sk - Sq positions): query i sits at
 * position i + Sk - Sq and key j is masked when j > i + Sk - Sq. With Sq ==
 * Sk this is the usual lower triangle; decode (Sq = 1) sees every key.
 *
 * GQA (kv_heads < num_heads): query head h reads KV head h / (num_heads /
 * kv_heads), groups of consecutive query heads sharing one KV head
 * (repeat_interleave, never tile); no copy is made.
 */
#ifndef TINYLLM_ATTENTION_H
#define TINYLLM_ATTENTION_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The additive mask's shape, broadcast over the missing dimensions. */
typedef enum tl_attn_mask {
  TL_ATTN_MASK_NONE = 0,    /* no mask: the pointer is not read (may be NULL) */
  TL_ATTN_MASK_PADDING = 1, /* [B, 1, 1, Sk]: per key, per sample */
  TL_ATTN_MASK_FULL = 2,    /* [B, num_heads, Sq, Sk]: the generic mask */
  TL_ATTN_MASK_SEQ = 3,     /* [Sq, Sk] (equally [1, Sq, Sk], [1, 1, Sq, Sk]): shared by all */
  TL_ATTN_MASK_BATCH = 4    /* [B, 1, Sq, Sk]: per sample, shared by the heads */
} tl_attn_mask;

/* Sdpa: y = Softmax(q @ k^T / sqrt(head_dim) + causal + mask) @ v, per
 * (sample, query head), with GQA as above. causal: 0 or 1 (any non-zero is
 * 1). The kernel keeps one row of scores at a time. */
tl_status tl_sdpa_f32(const float* q, const float* k, const float* v, const float* mask, float* y, int64_t batch,
                      int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                      tl_attn_mask mask_kind);

/* FlashAttention: Sdpa's arguments and result (within tolerance), computed
 * over tiles of keys with an online softmax (running max, rescaled running
 * sum and accumulator): no [Sq, Sk] score matrix and no score row exists. */
tl_status tl_flash_attention_f32(const float* q, const float* k, const float* v, const float* mask, float* y,
                                 int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                                 int64_t head_dim, int32_t causal, tl_attn_mask mask_kind);

/* FlashAttention of f16 or bf16 q, k, v (a half KV cache's keys and values)
 * and y (uint16_t bit patterns), the mask f32: the inputs widened exactly,
 * the scores, softmax and weighted sums in f32 as tl_flash_attention_f32
 * computes them, y rounded once to the dtype. The causal mask stays -1e4,
 * which f16 holds exactly (not -inf: a row whose unmasked scores are all
 * padded keeps its causally masked keys in play, as the spec's -1e4 says).
 * Accumulating the scores or the weighted sum of v in half is outside this
 * contract (f16's sums lose 2^-11 a term and end at 65504). */
tl_status tl_flash_attention_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                                 uint16_t* y, int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq,
                                 int64_t sk, int64_t head_dim, int32_t causal, tl_attn_mask mask_kind);
tl_status tl_flash_attention_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                                  uint16_t* y, int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq,
                                  int64_t sk, int64_t head_dim, int32_t causal, tl_attn_mask mask_kind);

/* SdpaCross: decoder queries over encoder keys and values, no mask, no causal;
 *   q: [B, num_heads, Sq, head_dim], k, v: [B, num_heads, Se, head_dim]. */
tl_status tl_sdpa_cross_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                            int64_t sq, int64_t se, int64_t head_dim);

/* SdpaWindow: q, k, v, y: [B, num_heads, S, head_dim]; the S positions form
 * S / window consecutive windows of `window` positions and each query attends
 * to the keys of its own window only (non-causal): query i sees keys
 * [floor(i / window) * window, floor(i / window) * window + window).
 * window must divide S. */
tl_status tl_sdpa_window_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                             int64_t seq, int64_t head_dim, int64_t window);

/* Sdpa, SdpaCross and SdpaWindow of f16 or bf16 q, k, v and y (uint16_t bit
 * patterns), Sdpa's mask f32: as FlashAttention's half twins above, the
 * inputs widened exactly, scores (accumulated in f32), the softmax and the
 * weighted sums of v in f32 as the f32 op computes them, y rounded once to
 * the dtype. Sdpa's causal mask stays -1e4 (f16 holds it; -inf is outside
 * the contract: a row of padded keys keeps its causally masked keys);
 * SdpaWindow's keys outside a query's window take no part at all (neither
 * -inf nor -1e4 scores: excluded). Same rules and statuses. */
tl_status tl_sdpa_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                      int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,
                      int32_t causal, tl_attn_mask mask_kind);
tl_status tl_sdpa_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                       int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,
                       int32_t causal, tl_attn_mask mask_kind);
tl_status tl_sdpa_cross_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                            int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim);
tl_status tl_sdpa_cross_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                             int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim);
tl_status tl_sdpa_window_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                             int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window);
tl_status tl_sdpa_window_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                              int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window);

/* QK-norm (Qwen3, DeepSeek-V3), before Rope: RmsNorm of every head's vector
 * on its own, the reduction over head_dim only (never over num_heads *
 * head_dim), gain g: [head_dim] shared by the heads;
 *   x, y: [tokens, num_heads, head_dim]   (tokens = B * S)
 *   y = x / sqrt(mean(x^2 over head_dim) + eps) * g.
 * y == x is allowed. */
tl_status tl_qk_norm_f32(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads, int64_t head_dim,
                         float eps);

/* QK-norm of f16 or bf16 x and y (uint16_t bit patterns), the gain g f32:
 * as tl_rms_norm_f16 and _bf16 on tokens * num_heads rows of head_dim, x
 * widened exactly, the sum of squares and the scaling in f32, y rounded once.
 * A sum of squares in f16 is outside the contract (it ends at 65504: a head
 * of |x| >= 256 would overflow it). Same rules and statuses; y == x is
 * allowed. */
tl_status tl_qk_norm_f16(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                         int64_t head_dim, float eps);
tl_status tl_qk_norm_bf16(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                          int64_t head_dim, float eps);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_ATTENTION_H */
