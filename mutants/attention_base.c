/* attention_base.c: tinyllm/attention.h in plain C11 (Sdpa, FlashAttention,
 * SdpaCross, SdpaWindow, QK-norm), and its mutants.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is the correct plugin
 * konform_attention_base: scores, softmax and weighted sums in double, each
 * output rounded once; FlashAttention by tiles of 16 keys with the online
 * softmax (running max, rescaled sum and accumulator). With
 * -DKONFORM_MUTANT=N it is mutant attention_mNN: one defect from the spec's
 * warnings switched on, everything else identical, so the harness has one
 * thing to find. mutants/manifest.tsv names the check that must catch each.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tinyllm/attention.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 15
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..15 (attention_m01..m15)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

/* ---- argument checks (the header's rules) ---------------------------------- */

/* Whether 4 * prod(s) (the byte count) fits int64_t, exactly: a product in
 * double rounds 4 * 2^61 = 2^63 to (double)INT64_MAX, which compares equal. */
static int fits(const int64_t* s, int n) {
  for (int i = 0; i < n; ++i)
    if (s[i] == 0) return 1;
  int64_t p = 4;
  for (int i = 0; i < n; ++i) {
    if (s[i] > INT64_MAX / p) return 0;
    p *= s[i];
  }
  return 1;
}

typedef struct {
  int64_t batch, heads, kv_heads, sq, sk, d;
} dims;

static tl_status check(const dims* n, int kind) {
  const int64_t all[6] = {n->batch, n->heads, n->kv_heads, n->sq, n->sk, n->d};
  for (int i = 0; i < 6; ++i)
    if (all[i] < 0) return TL_ERR_INVALID_ARGUMENT;
  if (n->heads < 1 || n->kv_heads < 1) return TL_ERR_INVALID_ARGUMENT;
  if (kind < 0 || kind > 4) return TL_ERR_INVALID_ARGUMENT;
  const int64_t qs[4] = {n->batch, n->heads, n->sq, n->d}, ks[4] = {n->batch, n->kv_heads, n->sk, n->d},
                ms[4] = {n->batch, n->heads, n->sq, n->sk};
  if (!fits(qs, 4) || !fits(ks, 4) || (kind != 0 && !fits(ms, 4))) return TL_ERR_INVALID_ARGUMENT;
#if !MUTANT(10) /* m10: num_heads % kv_heads != 0 accepted (the group size rounded down) */
  if (n->heads % n->kv_heads != 0) return TL_ERR_SHAPE;
#endif
  if (n->d == 0) return TL_ERR_SHAPE;
  if (n->sk == 0 && n->sq > 0) return TL_ERR_SHAPE;
  return TL_OK;
}

/* ---- one query row ----------------------------------------------------------- */

typedef struct {
  const float *q, *k, *v, *mask;
  int causal;
  int64_t i;
} row;

static int64_t kv_head(const dims* n, int64_t h) {
#if MUTANT(1) /* m01: GQA by tiling: query head h reads KV head h % kv_heads */
  return h % n->kv_heads;
#elif MUTANT(10)
  const int64_t kvh = h / (n->heads / n->kv_heads);
  return kvh < n->kv_heads ? kvh : n->kv_heads - 1;
#else
  return h / (n->heads / n->kv_heads); /* repeat_interleave */
#endif
}

static row row_of(const float* q, const float* k, const float* v, const float* mask, const dims* n, int kind,
                  int causal, int64_t b, int64_t h, int64_t i) {
  row r;
  const int64_t kvh = kv_head(n, h);
  r.q = q + ((b * n->heads + h) * n->sq + i) * n->d;
  r.k = k + (b * n->kv_heads + kvh) * n->sk * n->d;
  r.v = v + (b * n->kv_heads + kvh) * n->sk * n->d;
  r.mask = NULL;
  switch (kind) {
#if MUTANT(9) /* m09: the padding mask [B,1,1,Sk] read as [Sq,Sk] */
    case TL_ATTN_MASK_PADDING: r.mask = mask + i * n->sk; break;
#else
    case TL_ATTN_MASK_PADDING: r.mask = mask + b * n->sk; break;
#endif
    case TL_ATTN_MASK_FULL: r.mask = mask + ((b * n->heads + h) * n->sq + i) * n->sk; break;
    case TL_ATTN_MASK_SEQ: r.mask = mask + i * n->sk; break;
    case TL_ATTN_MASK_BATCH: r.mask = mask + (b * n->sq + i) * n->sk; break;
    default: break;
  }
  r.causal = causal;
  r.i = i;
  return r;
}

static double score(const row* r, const dims* n, int64_t j) {
  double dot = 0.0;
  for (int64_t t = 0; t < n->d; ++t) dot += (double)r->q[t] * (double)r->k[j * n->d + t];
#if MUTANT(3) /* m03: the scale multiplied where the spec divides: * sqrt(D) */
  double s = dot * sqrt((double)n->d);
#else
  double s = dot / sqrt((double)n->d);
#endif
#if MUTANT(7) /* m07: the causal mask aligned top-left (j > i) whatever Sk - Sq */
  const int masked = r->causal && j > r->i;
#else
  const int masked = r->causal && j > r->i + n->sk - n->sq;
#endif
#if MUTANT(2) /* m02: the causal mask is -inf, not -1e4 */
  if (masked) s += -INFINITY;
#elif MUTANT(15) /* m15: the causal mask is -1e9 in float: a fully masked row loses its scores */
  if (masked) s = (double)((float)s + -1e9f);
#else
  if (masked) s += -1e4;
#endif
  if (r->mask != NULL) s += (double)r->mask[j];
  return s;
}

/* Softmax over keys [j0, j1) of the row, then y = p @ v. */
static void attend(const row* r, const dims* n, int64_t j0, int64_t j1, float* out) {
  const int64_t len = j1 - j0;
  double* s = malloc((size_t)(len > 0 ? len : 1) * sizeof(double));
  double m = -INFINITY, sum = 0.0;
  for (int64_t j = j0; j < j1; ++j) {
    s[j - j0] = score(r, n, j);
    if (s[j - j0] > m) m = s[j - j0];
  }
  for (int64_t j = 0; j < len; ++j) {
#if MUTANT(5) /* m05: exp without subtracting the max (in float, as a kernel would) */
    s[j] = (double)expf((float)s[j]);
    (void)m;
#else
    s[j] = exp(s[j] - m);
#endif
    sum += s[j];
  }
  for (int64_t t = 0; t < n->d; ++t) {
    double acc = 0.0;
    for (int64_t j = 0; j < len; ++j) acc += s[j] * (double)r->v[(j0 + j) * n->d + t];
    out[t] = (float)(acc / sum);
  }
  free(s);
}

/* ---- Sdpa, FlashAttention -------------------------------------------------- */

/* Static, and called by SdpaCross too: a call to the exported tl_sdpa_f32
 * from inside the library would bind to konform's own libtl_kernels (loaded
 * first, in the global scope) and check that kernel instead of this one. */
static tl_status sdpa(const float* q, const float* k, const float* v, const float* mask, float* y, int64_t batch,
                      int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                      tl_attn_mask mask_kind) {
  const dims n = {batch, num_heads, kv_heads, sq, sk, head_dim};
  const tl_status st = check(&n, (int)mask_kind);
  if (st != TL_OK) return st;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < num_heads; ++h)
      for (int64_t i = 0; i < sq; ++i) {
        const row r = row_of(q, k, v, mask, &n, (int)mask_kind, causal != 0, b, h, i);
        attend(&r, &n, 0, sk, y + ((b * num_heads + h) * sq + i) * head_dim);
      }
  return TL_OK;
}

tl_status tl_sdpa_f32(const float* q, const float* k, const float* v, const float* mask, float* y, int64_t batch,
                      int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                      tl_attn_mask mask_kind) {
  return sdpa(q, k, v, mask, y, batch, num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind);
}

#define FLASH_TILE 16

tl_status tl_flash_attention_f32(const float* q, const float* k, const float* v, const float* mask, float* y,
                                 int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                                 int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  const dims n = {batch, num_heads, kv_heads, sq, sk, head_dim};
  const tl_status st = check(&n, (int)mask_kind);
  if (st != TL_OK) return st;
  double* acc = malloc((size_t)(head_dim > 0 ? head_dim : 1) * sizeof(double));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < num_heads; ++h)
      for (int64_t i = 0; i < sq; ++i) {
        const row r = row_of(q, k, v, mask, &n, (int)mask_kind, causal != 0, b, h, i);
        double m = -INFINITY, l = 0.0;
        for (int64_t t = 0; t < head_dim; ++t) acc[t] = 0.0;
#if MUTANT(13) /* m13: the last partial tile (Sk % 16 keys) dropped, unless it is the only one */
        const int64_t end = sk > FLASH_TILE ? sk - sk % FLASH_TILE : sk;
#else
        const int64_t end = sk;
#endif
        for (int64_t j0 = 0; j0 < end; j0 += FLASH_TILE) {
          const int64_t j1 = j0 + FLASH_TILE < end ? j0 + FLASH_TILE : end;
          double s[FLASH_TILE], tm = -INFINITY;
          for (int64_t j = j0; j < j1; ++j) {
            s[j - j0] = score(&r, &n, j);
            if (s[j - j0] > tm) tm = s[j - j0];
          }
          const double m_new = tm > m ? tm : m;
#if MUTANT(8) /* m08: the running sum and accumulator not rescaled when the max grows */
          const double c = 1.0;
#else
          const double c = m == -INFINITY ? 0.0 : exp(m - m_new);
#endif
          l *= c;
          for (int64_t t = 0; t < head_dim; ++t) acc[t] *= c;
          for (int64_t j = j0; j < j1; ++j) {
            const double p = exp(s[j - j0] - m_new);
            l += p;
            for (int64_t t = 0; t < head_dim; ++t) acc[t] += p * (double)r.v[j * head_dim + t];
          }
          m = m_new;
        }
        float* out = y + ((b * num_heads + h) * sq + i) * head_dim;
        for (int64_t t = 0; t < head_dim; ++t) out[t] = (float)(acc[t] / l);
      }
  free(acc);
  return TL_OK;
}

/* ---- SdpaCross, SdpaWindow ------------------------------------------------- */

tl_status tl_sdpa_cross_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                            int64_t sq, int64_t se, int64_t head_dim) {
#if MUTANT(12) /* m12: cross attention with the decoder's causal mask */
  const int32_t causal = 1;
#else
  const int32_t causal = 0;
#endif
  return sdpa(q, k, v, NULL, y, batch, num_heads, num_heads, sq, se, head_dim, causal, TL_ATTN_MASK_NONE);
}

tl_status tl_sdpa_window_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                             int64_t seq, int64_t head_dim, int64_t window) {
  const dims n = {batch, num_heads, num_heads, seq, seq, head_dim};
  const tl_status st = check(&n, 0);
  if (st != TL_OK) return st;
  if (window < 1) return TL_ERR_INVALID_ARGUMENT;
  if (seq % window != 0) return TL_ERR_SHAPE;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < num_heads; ++h)
      for (int64_t i = 0; i < seq; ++i) {
        const row r = row_of(q, k, v, NULL, &n, 0, 0, b, h, i);
#if MUTANT(6) /* m06: the window one key too wide: [start, start + window] (clamped to seq) */
        const int64_t j0 = i / window * window, j1 = j0 + window + 1 < seq ? j0 + window + 1 : seq;
#elif MUTANT(14) /* m14: no window at all: every key of the sequence */
        const int64_t j0 = 0, j1 = seq;
#else
        const int64_t j0 = i / window * window, j1 = j0 + window;
#endif
        attend(&r, &n, j0, j1, y + ((b * num_heads + h) * seq + i) * head_dim);
      }
  return TL_OK;
}

/* ---- QK-norm ----------------------------------------------------------------- */

tl_status tl_qk_norm_f32(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads, int64_t head_dim,
                         float eps) {
  if (tokens < 0 || num_heads < 0 || head_dim < 0) return TL_ERR_INVALID_ARGUMENT;
  const int64_t s[3] = {tokens, num_heads, head_dim};
  if (!fits(s, 3)) return TL_ERR_INVALID_ARGUMENT;
  if (!(eps >= 0.0f) || isinf(eps)) return TL_ERR_INVALID_ARGUMENT;
  if (head_dim == 0) return TL_ERR_SHAPE;
#if MUTANT(4) /* m04: QK-norm over all heads of a token at once (num_heads * head_dim) */
  const int64_t rows = tokens, len = num_heads * head_dim;
#else
  const int64_t rows = tokens * num_heads, len = head_dim;
#endif
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * len;
    double ss = 0.0;
    for (int64_t t = 0; t < len; ++t) ss += (double)xr[t] * (double)xr[t];
#if MUTANT(11) /* m11: eps outside the root */
    const double inv = 1.0 / (sqrt(ss / (double)len) + (double)eps);
#else
    const double inv = 1.0 / sqrt(ss / (double)len + (double)eps);
#endif
    for (int64_t t = 0; t < len; ++t) y[r * len + t] = (float)((double)xr[t] * inv * (double)g[t % head_dim]);
  }
  return TL_OK;
}
