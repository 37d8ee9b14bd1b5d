/* tinyllm/pos.h: the position-encoding ops of spec/operations.txt section 3:
 * Rope (with its cos/sin cache), MultiAxisRope, SinusoidalEmbed, TokenEmbed,
 * PosEmbed and RelativePosEmbedding.
 *
 * Conventions (as tinyllm/elementwise.h): float32 tensors, contiguous and
 * row-major; sizes are int64_t; positions and token ids are int32_t, one per
 * token. Outputs never overlap inputs, except where a function says y == x
 * is allowed.
 *
 * Every function validates its arguments and returns a tl_status
 * (tinyllm/status.h): on anything but TL_OK it has written nothing and
 * tl_last_error() says why. Data pointers are the caller's to get right.
 *   TL_ERR_INVALID_ARGUMENT  a negative size, an odd head_dim or rotary width,
 *                            an unknown layout, a base or period that is not
 *                            a finite positive number, a negative position,
 *                            a token id outside the vocabulary
 *   TL_ERR_SHAPE             sizes that do not fit together (MultiAxisRope's
 *                            axis widths not summing to head_dim)
 *   TL_ERR_CONTEXT_OVERFLOW  ContextOverflowError: a position at or past the
 *                            end of the cos/sin cache or the position table
 *                            (the spec refuses rather than extrapolates)
 *
 * Numerics of every angle (Rope's cache, MultiAxisRope, SinusoidalEmbed):
 * the frequency and the angle are formed in double from the exact inputs,
 * cos and sin are taken in double, and each is rounded once to float. So a
 * cos/sin value is within 2^-25 (plus a double's own error) of the true cos
 * and sin of the spec's angle, at any position a double angle holds to
 * better than f32 resolution: |angle| <= 2^24. f32 angle arithmetic (as in
 * llama.cpp or HF's float32 tables) is off by up to |angle| * 2^-24 radians,
 * e.g. 0.06 at position 10^6, and does not meet this contract.
 */
#ifndef TINYLLM_POS_H
#define TINYLLM_POS_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which entries of a rotary range form pair j (of rot_dim / 2 pairs). */
typedef enum tl_rope_layout {
  TL_ROPE_NEOX = 0,       /* (x[j], x[j + rot_dim/2]): NeoX, HF Llama, Qwen (the spec's default) */
  TL_ROPE_INTERLEAVED = 1 /* (x[2j], x[2j + 1]): GPT-J, Meta's original Llama code, Flux */
} tl_rope_layout;

/* The largest cos/sin cache, in positions: 2^24. Past it a double angle
 * p * base^(-2j/d) carries more than 2^-29 radians of its own rounding. */
#define TL_ROPE_MAX_POSITIONS 16777216

/* The most axes of a MultiAxisRope ([t, h, w] is 3). */
#define TL_ROPE_MAX_AXES 8

/* ---- Rope ------------------------------------------------------------------
 * The cos/sin cache of rotary width rot_dim, for positions 0 .. max_seq-1
 * (max_seq = max_position_embeddings). cache: [max_seq, rot_dim], row p:
 *   cache[p, j]             = cos(p * f_j)    j < rot_dim / 2
 *   cache[p, rot_dim/2 + j] = sin(p * f_j)    f_j = base^(-2j / rot_dim)
 * (vLLM's cos_sin_cache layout). rot_dim is head_dim, or the rotated prefix
 * of it for partial rotary. Requires rot_dim even and >= 2, 1 <= max_seq <=
 * TL_ROPE_MAX_POSITIONS, base finite and > 0. Row p never depends on max_seq. */
tl_status tl_rope_cache_f32(float* cache, int64_t max_seq, int64_t rot_dim, float base);

/* The same cache in f16 or bf16 (uint16_t bit patterns), as vLLM keeps its
 * cos_sin_cache and HF its cos and sin tables in the model's dtype: each
 * entry the f32 op's (the angle in double, cos and sin rounded to f32), then
 * rounded once more to the dtype (to nearest, ties to even: never
 * truncated). The frequency and the angle stay in double: a frequency held
 * in the half dtype (HF's inv_freq under a half default dtype) turns every
 * angle by p f 2^-9 (bf16) and is outside this contract. Same rules and
 * statuses. (The rotation, tl_rope_apply_f16/bf16, reads an f32 cache.) */
tl_status tl_rope_cache_f16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base);
tl_status tl_rope_cache_bf16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base);

/* The spec warns about rope_theta < 1 or > 1e9 but permits it: this says
 * whether `base` is such a base (1) or not (0). Status-free: the cache and
 * the rotation accept any finite positive base; the caller decides whether to
 * warn (konform list and docs/ops-pos.md say why: small bases make angles
 * grow past what a double holds to f32 accuracy). NaN counts as extreme. */
int tl_rope_base_is_extreme(float base);

/* Rotates x: [T, H, D] (D = head_dim) by the cache of tl_rope_cache_f32:
 * token t, head h, pair j (pairing by `layout`, over the first rot_dim entries
 * of each head) at c = cache[pos[t], j], s = cache[pos[t], rot_dim/2 + j]:
 *   y[a] = x[a] * c - x[b] * s
 *   y[b] = x[a] * s + x[b] * c
 * Entries rot_dim .. D-1 of each head are copied. y == x is allowed.
 * Requires T, H >= 0; head_dim D even and >= 2 (an odd head_dim is refused:
 * the spec validates it at load time); rot_dim even, 2 <= rot_dim <= D;
 * layout a tl_rope_layout; 1 <= max_seq; 0 <= pos[t] (else
 * TL_ERR_INVALID_ARGUMENT) and pos[t] < max_seq (else TL_ERR_CONTEXT_OVERFLOW).
 * All positions are checked before anything is written. */
tl_status tl_rope_apply_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                            int64_t rot_dim, const float* cache, int64_t max_seq, int layout);

/* Rope of f16 or bf16 activations (uint16_t bit patterns) from the same f32
 * cache (what ggml does for an f16 tensor): each pair widened exactly, the
 * rotation in f32 as tl_rope_apply_f32 computes it, each member rounded once
 * to the dtype (to nearest, ties to even; past the dtype's range to an
 * infinity). The tail rot_dim .. D-1 of each head is copied bit for bit (NaN
 * payloads included). HF's half models round cos and sin to the dtype first
 * and multiply in it: up to about two more units of the dtype's roundoff,
 * which this contract does not allow. Same rules and statuses; y == x is
 * allowed. */
tl_status tl_rope_apply_f16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                            int64_t rot_dim, const float* cache, int64_t max_seq, int layout);
tl_status tl_rope_apply_bf16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                             int64_t rot_dim, const float* cache, int64_t max_seq, int layout);

/* ---- MultiAxisRope (video/image DiT) ----------------------------------------
 * head_dim D is split into n_axes consecutive sub-ranges of axis_dims[a]
 * entries (e.g. [t, h, w]); sub-range a is an independent Rope with the
 * position pos[t * n_axes + a] and the base axis_bases[a]:
 *   f_{a,j} = axis_bases[a]^(-2j / axis_dims[a]),   j < axis_dims[a] / 2,
 * paired by `layout` within the sub-range, angles as in the header comment,
 * computed per call (positions are a grid, not a prefix: no cache).
 * y == x is allowed. Requires T, H >= 0; 1 <= n_axes <= TL_ROPE_MAX_AXES;
 * layout a tl_rope_layout; every axis_dims[a] even and >= 2; every base finite
 * and > 0 (all TL_ERR_INVALID_ARGUMENT, checked before the shape); the widths
 * summing to D (else TL_ERR_SHAPE). Positions may be any int32 (negative ones
 * rotate backwards, as a centred grid needs). */
tl_status tl_multi_axis_rope_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                 int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout);

/* MultiAxisRope of f16 or bf16 x and y (uint16_t bit patterns), as Rope's
 * half twins: each pair widened exactly, its angles, cos and sin as the f32
 * op forms them (f_{a,j} and the angle p f_{a,j} in double, cos and sin
 * rounded to f32), the rotation in f32, each member rounded once to the
 * dtype (to nearest, ties to even; past the dtype's range to an infinity).
 * Rotating in half (cos and sin rounded to the dtype, the products in it)
 * is outside this contract. Same rules and statuses; y == x is allowed. */
tl_status tl_multi_axis_rope_f16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                 int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout);
tl_status tl_multi_axis_rope_bf16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                  int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout);

/* ---- SinusoidalEmbed (diffusion timestep embedding) -----------------------
 * y: [n, dim], one row per timestep t[i] (any float; NaN and Inf give NaN):
 *   half = dim / 2,  f_j = exp(-j * ln(max_period) / (half - freq_shift)),
 *   s_j = sin(t[i] * f_j),  c_j = cos(t[i] * f_j),  j < half,
 * laid out by `layout`:
 *   TL_SINUSOIDAL_INTERLEAVED  y[2j] = s_j, y[2j+1] = c_j (the spec's layout)
 *   TL_SINUSOIDAL_SIN_COS      y[j] = s_j, y[half+j] = c_j (diffusers, flip_sin_to_cos=False)
 *   TL_SINUSOIDAL_COS_SIN      y[j] = c_j, y[half+j] = s_j (DiT; diffusers, flip_sin_to_cos=True)
 * The spec's form is max_period = 10000, freq_shift = 0, interleaved;
 * diffusers' downscale_freq_shift is freq_shift. Requires n >= 0, dim even
 * and >= 2, max_period finite and > 0, freq_shift finite and < half. */
typedef enum tl_sinusoidal_layout {
  TL_SINUSOIDAL_INTERLEAVED = 0,
  TL_SINUSOIDAL_SIN_COS = 1,
  TL_SINUSOIDAL_COS_SIN = 2
} tl_sinusoidal_layout;

tl_status tl_sinusoidal_embed_f32(const float* t, float* y, int64_t n, int64_t dim, float max_period, float freq_shift,
                                  int layout);

/* SinusoidalEmbed of f16 or bf16 timesteps t and y (uint16_t bit patterns):
 * t widened exactly, the angles t f_j in double as the f32 op forms them,
 * sin and cos as the f32 op computes them, each rounded once more to the
 * dtype (to nearest, ties to even: never truncated). f16 holds DDPM's
 * integer timesteps 0..999 exactly; bf16 holds the integers up to 256 only
 * (the caller who needs more keeps t in f32 and casts y). Same rules and
 * statuses. */
tl_status tl_sinusoidal_embed_f16(const uint16_t* t, uint16_t* y, int64_t n, int64_t dim, float max_period,
                                  float freq_shift, int layout);
tl_status tl_sinusoidal_embed_bf16(const uint16_t* t, uint16_t* y, int64_t n, int64_t dim, float max_period,
                                   float freq_shift, int layout);

/* ---- TokenEmbed, PosEmbed: learned tables ----------------------------------
 * out[i, :] = table[ids[i], :], rows copied bit for bit (NaN payloads too).
 * TokenEmbed: table [vocab, d]; every 0 <= ids[i] < vocab, else
 * TL_ERR_INVALID_ARGUMENT. Unlike tl_embedding_f32 (caller-validated), a bad
 * id is refused before anything is written. Requires n >= 0, vocab, d >= 1. */
tl_status tl_token_embed_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t vocab, int64_t d);

/* PosEmbed: learned absolute positions (GPT-2's wpe), table [max_pos, d]
 * (max_pos = max_position_embeddings); pos[i] < 0 is TL_ERR_INVALID_ARGUMENT,
 * pos[i] >= max_pos is TL_ERR_CONTEXT_OVERFLOW. Requires n >= 0, max_pos,
 * d >= 1. */
tl_status tl_pos_embed_f32(const float* table, const int32_t* pos, float* out, int64_t n, int64_t max_pos, int64_t d);

/* TokenEmbed and PosEmbed of f16 or bf16 tables (uint16_t bit patterns): the
 * same rules, rows of 2-byte elements copied bit for bit. */
tl_status tl_token_embed_f16(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t n, int64_t vocab,
                             int64_t d);
tl_status tl_token_embed_bf16(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t n, int64_t vocab,
                              int64_t d);
tl_status tl_pos_embed_f16(const uint16_t* table, const int32_t* pos, uint16_t* out, int64_t n, int64_t max_pos,
                           int64_t d);
tl_status tl_pos_embed_bf16(const uint16_t* table, const int32_t* pos, uint16_t* out, int64_t n, int64_t max_pos,
                            int64_t d);

/* ---- RelativePosEmbedding (T5) ---------------------------------------------
 * The attention bias of T5's relative positions, to be added to the scores:
 *   bias[h, i, j] = table[bucket(k_pos[j] - q_pos[i]), h]
 * table: [num_buckets, H] (nn.Embedding(num_buckets, n_heads)), bias: [H, Lq, Lk].
 * bucket(r), with r = key position - query position (HF's memory - context):
 *   bidirectional: nb = num_buckets / 2, offset = nb if r > 0 else 0, n = |r|
 *   otherwise:     nb = num_buckets,     offset = 0, n = max(-r, 0)
 *                  (keys after the query share bucket 0 with r = 0)
 *   me = nb / 2 (exact buckets), m = nb - me (log-spaced buckets)
 *   bucket = offset + n                                      if n < me
 *          = offset + me + min(m - 1, floor(m * ln(n / me) / ln(max_distance / me)))  otherwise
 * The floor is of the exact real number: bucket me + k is reached exactly when
 * n^m >= me^(m-k) * max_distance^k (decided in integers where logs cannot
 * tell, e.g. at n = 16, 32, 64 for T5's defaults, where the real number is an
 * integer), so the buckets do not depend on how a library rounds its logs.
 * Requires Lq, Lk >= 0; H >= 1; 2 <= nb; num_buckets <= 1024;
 * me < max_distance <= 2^31 - 1. */
tl_status tl_relative_pos_embedding_f32(const float* table, const int32_t* q_pos, const int32_t* k_pos, float* bias,
                                        int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                        int bidirectional);

/* RelativePosEmbedding of an f16 or bf16 table and bias (uint16_t bit
 * patterns): the same buckets, each element a 2-byte copy of the table's,
 * bit for bit (NaN payloads too). Same rules and statuses. */
tl_status tl_relative_pos_embedding_f16(const uint16_t* table, const int32_t* q_pos, const int32_t* k_pos,
                                        uint16_t* bias, int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets,
                                        int64_t max_distance, int bidirectional);
tl_status tl_relative_pos_embedding_bf16(const uint16_t* table, const int32_t* q_pos, const int32_t* k_pos,
                                         uint16_t* bias, int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets,
                                         int64_t max_distance, int bidirectional);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_POS_H */
