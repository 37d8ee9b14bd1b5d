/* alt_attn_float.c: tinyllm/attention.h (less QK-norm) computed the plain
 * way, all in float, every sum a recursive float sum left to right: each score's dot product
 * over head_dim (a product and an addition per term, no FMA, no blocking),
 * the softmax's sum of the exps over the keys, and each output's sum of
 * e_j v_j over the keys, divided once by that sum. Everything else as the
 * spec writes it: s = (q . k) * (1 / sqrt(D)), then -1e4 where causally
 * masked, then the additive mask, each in float; the row's max subtracted
 * before expf. FlashAttention by tiles of 32 keys with the online softmax,
 * its running max, sum and accumulator in float: the sums run on from tile
 * to tile, rescaled by expf(m_old - m_new) when the max grows. QK-norm is
 * not exported: it is RmsNorm per head, under the norms' summation contract
 * (docs/tolerances.md, "Reductions"), which a left-to-right sum is outside of.
 *
 * Correct, and summed differently from the scalar (pairwise) and simd
 * (blocks into double) backends. The limits are derived for those sums, not
 * for chains of Sk - 1 roundings; on the sweep (Sk <= 300, head_dim <= 128,
 * and a long context, Sk 2048-16384, every 64th case) this kernel was
 * measured inside them (docs/ops-attention.md, "The error model"): a
 * failure at Sk <= 300 is a false alarm; at long contexts its sums over
 * keys are outside the summation contract, so there it passes by margin,
 * not by right.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tinyllm/attention.h"

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
  if (n->heads % n->kv_heads != 0) return TL_ERR_SHAPE;
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

static row row_of(const float* q, const float* k, const float* v, const float* mask, const dims* n, int kind,
                  int causal, int64_t b, int64_t h, int64_t i) {
  row r;
  const int64_t kvh = h / (n->heads / n->kv_heads); /* repeat_interleave */
  r.q = q + ((b * n->heads + h) * n->sq + i) * n->d;
  r.k = k + (b * n->kv_heads + kvh) * n->sk * n->d;
  r.v = v + (b * n->kv_heads + kvh) * n->sk * n->d;
  r.mask = NULL;
  switch (kind) {
    case TL_ATTN_MASK_PADDING: r.mask = mask + b * n->sk; break;
    case TL_ATTN_MASK_FULL: r.mask = mask + ((b * n->heads + h) * n->sq + i) * n->sk; break;
    case TL_ATTN_MASK_SEQ: r.mask = mask + i * n->sk; break;
    case TL_ATTN_MASK_BATCH: r.mask = mask + (b * n->sq + i) * n->sk; break;
    default: break;
  }
  r.causal = causal;
  r.i = i;
  return r;
}

/* The score in float: a left-to-right float dot product (a rounded product,
 * then a rounded addition, per term), times 1 / sqrt(D), then the masks. */
static float score(const row* r, const dims* n, float inv_root, int64_t j) {
  float dot = 0.0f;
  for (int64_t t = 0; t < n->d; ++t) {
    const float p = r->q[t] * r->k[j * n->d + t];
    dot += p;
  }
  float s = dot * inv_root;
  if (r->causal && j > r->i + n->sk - n->sq) s += -1e4f;
  if (r->mask != NULL) s += r->mask[j];
  return s;
}

/* Softmax over keys [j0, j1) of the row, then y = (sum e_j v_j) / sum e_j,
 * both sums left to right in float. e has j1 - j0 floats. */
static void attend(const row* r, const dims* n, int64_t j0, int64_t j1, float* e, float* out) {
  const int64_t len = j1 - j0;
  const float inv_root = 1.0f / sqrtf((float)n->d);
  float m = -INFINITY, sum = 0.0f;
  for (int64_t j = 0; j < len; ++j) {
    e[j] = score(r, n, inv_root, j0 + j);
    if (e[j] > m) m = e[j];
  }
  for (int64_t j = 0; j < len; ++j) {
    e[j] = expf(e[j] - m);
    sum += e[j];
  }
  for (int64_t t = 0; t < n->d; ++t) {
    float acc = 0.0f;
    for (int64_t j = 0; j < len; ++j) {
      const float p = e[j] * r->v[(j0 + j) * n->d + t];
      acc += p;
    }
    out[t] = acc / sum;
  }
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
  float* e = malloc((size_t)(sk > 0 ? sk : 1) * sizeof(float));
  if (e == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < num_heads; ++h)
      for (int64_t i = 0; i < sq; ++i) {
        const row r = row_of(q, k, v, mask, &n, (int)mask_kind, causal != 0, b, h, i);
        attend(&r, &n, 0, sk, e, y + ((b * num_heads + h) * sq + i) * head_dim);
      }
  free(e);
  return TL_OK;
}

tl_status tl_sdpa_f32(const float* q, const float* k, const float* v, const float* mask, float* y, int64_t batch,
                      int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                      tl_attn_mask mask_kind) {
  return sdpa(q, k, v, mask, y, batch, num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind);
}

#define FLASH_TILE 32

tl_status tl_flash_attention_f32(const float* q, const float* k, const float* v, const float* mask, float* y,
                                 int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                                 int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  const dims n = {batch, num_heads, kv_heads, sq, sk, head_dim};
  const tl_status st = check(&n, (int)mask_kind);
  if (st != TL_OK) return st;
  const float inv_root = 1.0f / sqrtf((float)head_dim);
  float* acc = malloc((size_t)(head_dim > 0 ? head_dim : 1) * sizeof(float));
  if (acc == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < num_heads; ++h)
      for (int64_t i = 0; i < sq; ++i) {
        const row r = row_of(q, k, v, mask, &n, (int)mask_kind, causal != 0, b, h, i);
        float m = -INFINITY, l = 0.0f;
        for (int64_t t = 0; t < head_dim; ++t) acc[t] = 0.0f;
        for (int64_t j0 = 0; j0 < sk; j0 += FLASH_TILE) {
          const int64_t j1 = j0 + FLASH_TILE < sk ? j0 + FLASH_TILE : sk;
          float s[FLASH_TILE], tm = -INFINITY;
          for (int64_t j = j0; j < j1; ++j) {
            s[j - j0] = score(&r, &n, inv_root, j);
            if (s[j - j0] > tm) tm = s[j - j0];
          }
          const float m_new = tm > m ? tm : m;
          if (m_new > m) {
            /* the running sum and accumulator rescaled to the new max */
            const float c = m == -INFINITY ? 0.0f : expf(m - m_new);
            l *= c;
            for (int64_t t = 0; t < head_dim; ++t) acc[t] *= c;
            m = m_new;
          }
          for (int64_t j = j0; j < j1; ++j) {
            const float p = expf(s[j - j0] - m);
            l += p;
            for (int64_t t = 0; t < head_dim; ++t) {
              const float pv = p * r.v[j * head_dim + t];
              acc[t] += pv;
            }
          }
        }
        float* out = y + ((b * num_heads + h) * sq + i) * head_dim;
        for (int64_t t = 0; t < head_dim; ++t) out[t] = acc[t] / l;
      }
  free(acc);
  return TL_OK;
}

/* ---- SdpaCross, SdpaWindow ------------------------------------------------- */

tl_status tl_sdpa_cross_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                            int64_t sq, int64_t se, int64_t head_dim) {
  return sdpa(q, k, v, NULL, y, batch, num_heads, num_heads, sq, se, head_dim, 0, TL_ATTN_MASK_NONE);
}

tl_status tl_sdpa_window_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                             int64_t seq, int64_t head_dim, int64_t window) {
  const dims n = {batch, num_heads, num_heads, seq, seq, head_dim};
  const tl_status st = check(&n, 0);
  if (st != TL_OK) return st;
  if (window < 1) return TL_ERR_INVALID_ARGUMENT;
  if (seq % window != 0) return TL_ERR_SHAPE;
  float* e = malloc((size_t)window * sizeof(float));
  if (e == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < num_heads; ++h)
      for (int64_t i = 0; i < seq; ++i) {
        const row r = row_of(q, k, v, NULL, &n, 0, 0, b, h, i);
        const int64_t j0 = i / window * window;
        attend(&r, &n, j0, j0 + window, e, y + ((b * num_heads + h) * seq + i) * head_dim);
      }
  free(e);
  return TL_OK;
}
