/* pos_base.c: the position-encoding ops of tinyllm/pos.h in plain C11, and
 * their mutants.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is a correct plugin
 * (konform_pos_base). Compiled with -DKONFORM_MUTANT=N it is mutant pos_mNN:
 * exactly one classic mistake of these ops switched on, everything else
 * identical, so the harness has one defect to find. mutants/manifest.tsv
 * names the check that must catch each one.
 *
 * Written independently of impl/: angles in double rounded once to float (the
 * contract), float rotations, T5 buckets decided exactly (an estimate from
 * logs, corrected by integer comparisons where the logs cannot tell).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tinyllm/pos.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 22
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..22 (mutant pos_m01..pos_m22)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

/* ---- status ------------------------------------------------------------- */

static _Thread_local char last_error[256];

const char* tl_last_error(void) { return last_error; }

static tl_status fail(tl_status s, const char* what) {
  snprintf(last_error, sizeof last_error, "%s", what);
  return s;
}

static int finite_positive(float v) { return v > 0.0f && isfinite(v); }

/* ---- Rope's cache ------------------------------------------------------- */

int tl_rope_base_is_extreme(float base) { return !(base >= 1.0f && base <= 1e9f); }

tl_status tl_rope_cache_f32(float* cache, int64_t max_seq, int64_t rot_dim, float base) {
  if (rot_dim < 2 || rot_dim % 2 != 0) return fail(TL_ERR_INVALID_ARGUMENT, "rot_dim must be even and >= 2");
  if (max_seq < 1 || max_seq > TL_ROPE_MAX_POSITIONS) return fail(TL_ERR_INVALID_ARGUMENT, "max_seq out of range");
  if (!finite_positive(base)) return fail(TL_ERR_INVALID_ARGUMENT, "base must be finite and > 0");
  const int64_t half = rot_dim / 2;
  for (int64_t j = 0; j < half; ++j) {
#if MUTANT(6) /* pos_m06: the exponent j/d instead of 2j/d */
    const double f = pow((double)base, -(double)j / (double)rot_dim);
#else
    const double f = pow((double)base, -(double)(2 * j) / (double)rot_dim);
#endif
    for (int64_t p = 0; p < max_seq; ++p) {
#if MUTANT(7) /* pos_m07: the angle in float, cosf/sinf of it (llama.cpp's theta) */
      const float a = (float)p * (float)f;
      const float c = cosf(a), s = sinf(a);
#else
      const double a = (double)p * f;
      const float c = (float)cos(a), s = (float)sin(a);
#endif
#if MUTANT(8) /* pos_m08: the row's halves swapped, sin first */
      cache[p * rot_dim + j] = s;
      cache[p * rot_dim + half + j] = c;
#else
      cache[p * rot_dim + j] = c;
      cache[p * rot_dim + half + j] = s;
#endif
    }
  }
  return TL_OK;
}

/* ---- Rope from the cache ------------------------------------------------ */

/* Pair j of a range of `width` entries from `o`: NeoX (j, j + width/2) or
 * interleaved (2j, 2j + 1). */
static void pair_of(int layout, int64_t o, int64_t width, int64_t j, int64_t* a, int64_t* b) {
#if MUTANT(1) /* pos_m01: the layouts swapped */
  layout = !layout;
#endif
  *a = o + (layout == TL_ROPE_NEOX ? j : 2 * j);
  *b = o + (layout == TL_ROPE_NEOX ? j + width / 2 : 2 * j + 1);
}

static void rotate(const float* x, float* y, int64_t ia, int64_t ib, float c, float s) {
  const float a = x[ia], b = x[ib];
  y[ia] = a * c - b * s;
  y[ib] = a * s + b * c;
}

static tl_status check_position(int32_t p, int64_t max_seq) {
  if (p < 0) return fail(TL_ERR_INVALID_ARGUMENT, "negative position");
#if !MUTANT(3)
  if (p >= max_seq) return fail(TL_ERR_CONTEXT_OVERFLOW, "ContextOverflowError: position past the cache");
#else
  (void)max_seq;
#endif
  return TL_OK;
}

tl_status tl_rope_apply_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                            int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  if (T < 0 || H < 0 || D < 0) return fail(TL_ERR_INVALID_ARGUMENT, "negative size");
#if !MUTANT(4) /* pos_m04: an odd head_dim accepted when rot_dim is even */
  if (D % 2 != 0) return fail(TL_ERR_INVALID_ARGUMENT, "odd head_dim");
#endif
  if (rot_dim < 2 || rot_dim % 2 != 0 || rot_dim > D) return fail(TL_ERR_INVALID_ARGUMENT, "bad rot_dim");
  if (layout != TL_ROPE_NEOX && layout != TL_ROPE_INTERLEAVED) return fail(TL_ERR_INVALID_ARGUMENT, "bad layout");
  if (max_seq < 1) return fail(TL_ERR_INVALID_ARGUMENT, "max_seq must be >= 1");
#if !MUTANT(2) /* pos_m02: positions checked token by token, after earlier tokens were written */
  for (int64_t t = 0; t < T; ++t) {
    tl_status s = check_position(pos[t], max_seq);
    if (s != TL_OK) return s;
  }
#endif
  const int64_t half = rot_dim / 2;
  for (int64_t t = 0; t < T; ++t) {
#if MUTANT(2)
    tl_status st = check_position(pos[t], max_seq);
    if (st != TL_OK) return st;
#endif
#if MUTANT(3) /* pos_m03: a position past the cache wrapped around instead of refused */
    const float* row = cache + (int64_t)(pos[t] % max_seq) * rot_dim;
#else
    const float* row = cache + (int64_t)pos[t] * rot_dim;
#endif
    for (int64_t h = 0; h < H; ++h) {
      const int64_t o = (t * H + h) * D;
#if MUTANT(5) /* pos_m05: the pass-through tail left unwritten when y != x */
      (void)o;
#else
      for (int64_t i = rot_dim; i < D; ++i) y[o + i] = x[o + i];
#endif
      for (int64_t j = 0; j < half; ++j) {
        int64_t ia, ib;
        pair_of(layout, o, rot_dim, j, &ia, &ib);
        rotate(x, y, ia, ib, row[j], row[half + j]);
      }
    }
  }
  return TL_OK;
}

/* ---- MultiAxisRope ------------------------------------------------------ */

tl_status tl_multi_axis_rope_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                 int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout) {
  if (T < 0 || H < 0 || D < 0) return fail(TL_ERR_INVALID_ARGUMENT, "negative size");
  if (n_axes < 1 || n_axes > TL_ROPE_MAX_AXES) return fail(TL_ERR_INVALID_ARGUMENT, "bad n_axes");
  if (layout != TL_ROPE_NEOX && layout != TL_ROPE_INTERLEAVED) return fail(TL_ERR_INVALID_ARGUMENT, "bad layout");
  int64_t sum = 0;
  for (int64_t a = 0; a < n_axes; ++a)
    if (axis_dims[a] < 2 || axis_dims[a] % 2 != 0) return fail(TL_ERR_INVALID_ARGUMENT, "bad axis width");
  for (int64_t a = 0; a < n_axes; ++a)
    if (!finite_positive(axis_bases[a])) return fail(TL_ERR_INVALID_ARGUMENT, "bad axis base");
  for (int64_t a = 0; a < n_axes; ++a) {
    if (axis_dims[a] > D) return fail(TL_ERR_SHAPE, "axis wider than head_dim");
    sum += axis_dims[a];
  }
  if (sum != D) return fail(TL_ERR_SHAPE, "axis widths do not sum to head_dim");
  for (int64_t t = 0; t < T; ++t) {
    int64_t offset = 0;
    for (int64_t a = 0; a < n_axes; ++a) {
      const int64_t w = axis_dims[a];
#if MUTANT(9) /* pos_m09: the axes' positions taken in reverse order */
      const double p = (double)pos[t * n_axes + (n_axes - 1 - a)];
#else
      const double p = (double)pos[t * n_axes + a];
#endif
#if MUTANT(10) /* pos_m10: one base for every axis */
      const double base = (double)axis_bases[0];
#else
      const double base = (double)axis_bases[a];
#endif
      for (int64_t j = 0; j < w / 2; ++j) {
#if MUTANT(11) /* pos_m11: frequencies over head_dim instead of the axis's width */
        const double angle = p * pow(base, -(double)(2 * j) / (double)D);
#else
        const double angle = p * pow(base, -(double)(2 * j) / (double)w);
#endif
        const float c = (float)cos(angle), s = (float)sin(angle);
        for (int64_t h = 0; h < H; ++h) {
          int64_t ia, ib;
          pair_of(layout, (t * H + h) * D + offset, w, j, &ia, &ib);
          rotate(x, y, ia, ib, c, s);
        }
      }
      offset += w;
    }
  }
  return TL_OK;
}

/* ---- SinusoidalEmbed ---------------------------------------------------- */

tl_status tl_sinusoidal_embed_f32(const float* t, float* y, int64_t n, int64_t dim, float max_period, float freq_shift,
                                  int layout) {
  if (n < 0 || dim < 2 || dim % 2 != 0) return fail(TL_ERR_INVALID_ARGUMENT, "bad n or dim");
  if (!finite_positive(max_period)) return fail(TL_ERR_INVALID_ARGUMENT, "bad max_period");
  const int64_t half = dim / 2;
  if (!isfinite(freq_shift) || !((double)freq_shift < (double)half))
    return fail(TL_ERR_INVALID_ARGUMENT, "bad freq_shift");
  if (layout < TL_SINUSOIDAL_INTERLEAVED || layout > TL_SINUSOIDAL_COS_SIN)
    return fail(TL_ERR_INVALID_ARGUMENT, "bad layout");
#if MUTANT(13) /* pos_m13: max_period ignored, 10000 always */
  max_period = 10000.0f;
#endif
#if MUTANT(14) /* pos_m14: the exponent over dim, not half - freq_shift */
  const double step = -log((double)max_period) / (double)dim;
#else
  const double step = -log((double)max_period) / ((double)half - (double)freq_shift);
#endif
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < half; ++j) {
      const double angle = (double)t[i] * exp((double)j * step);
#if MUTANT(12) /* pos_m12: sin and cos swapped */
      const float s = (float)cos(angle), c = (float)sin(angle);
#else
      const float s = (float)sin(angle), c = (float)cos(angle);
#endif
      float* row = y + i * dim;
      if (layout == TL_SINUSOIDAL_INTERLEAVED) {
        row[2 * j] = s;
        row[2 * j + 1] = c;
      } else {
        row[j] = layout == TL_SINUSOIDAL_SIN_COS ? s : c;
        row[half + j] = layout == TL_SINUSOIDAL_SIN_COS ? c : s;
      }
    }
  return TL_OK;
}

/* ---- TokenEmbed, PosEmbed ----------------------------------------------- */

/* The row an index reads; -1 when the call must be refused. */
static int64_t token_row(int32_t id, int64_t vocab) {
#if MUTANT(15) /* pos_m15: negative ids wrap around (Python indexing), id + vocab */
  if (id < 0 && id >= -vocab) return id + vocab;
#elif MUTANT(16) /* pos_m16: no validation, ids clamped into the table */
  return id < 0 ? 0 : id >= vocab ? vocab - 1 : id;
#endif
  return id >= 0 && id < vocab ? id : -1;
}

static void gather(const float* table, int64_t row, float* out, int64_t d) {
  memcpy(out, table + row * d, (size_t)d * sizeof(float));
}

tl_status tl_token_embed_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t vocab, int64_t d) {
  if (n < 0 || vocab < 1 || d < 1) return fail(TL_ERR_INVALID_ARGUMENT, "bad sizes");
  for (int64_t i = 0; i < n; ++i)
    if (token_row(ids[i], vocab) < 0) return fail(TL_ERR_INVALID_ARGUMENT, "id outside the vocabulary");
  for (int64_t i = 0; i < n; ++i) gather(table, token_row(ids[i], vocab), out + i * d, d);
  return TL_OK;
}

#if MUTANT(18) /* pos_m18: OPT's learned-position offset of 2 applied to a table without one */
#define POS_OFFSET 2
#else
#define POS_OFFSET 0
#endif

tl_status tl_pos_embed_f32(const float* table, const int32_t* pos, float* out, int64_t n, int64_t max_pos, int64_t d) {
  if (n < 0 || max_pos < 1 || d < 1) return fail(TL_ERR_INVALID_ARGUMENT, "bad sizes");
  for (int64_t i = 0; i < n; ++i) {
    if (pos[i] < 0) return fail(TL_ERR_INVALID_ARGUMENT, "negative position");
#if MUTANT(19) /* pos_m19: a position past the table called an invalid argument, not ContextOverflowError */
    if (pos[i] + POS_OFFSET >= max_pos) return fail(TL_ERR_INVALID_ARGUMENT, "position past the table");
#elif !MUTANT(17) /* pos_m17: positions past the table wrap around (no check) */
    if (pos[i] + POS_OFFSET >= max_pos) return fail(TL_ERR_CONTEXT_OVERFLOW, "ContextOverflowError: past the table");
#endif
  }
  for (int64_t i = 0; i < n; ++i) gather(table, ((int64_t)pos[i] + POS_OFFSET) % max_pos, out + i * d, d);
  return TL_OK;
}

/* ---- RelativePosEmbedding (T5) ------------------------------------------ */

/* v = v * f for a little-endian base-2^32 number of *len limbs; f < 2^32. */
static void times(uint32_t* v, int* len, uint64_t f) {
  uint64_t carry = 0;
  for (int i = 0; i < *len; ++i) {
    const uint64_t p = (uint64_t)v[i] * f + carry;
    v[i] = (uint32_t)p;
    carry = p >> 32;
  }
  if (carry) v[(*len)++] = (uint32_t)carry;
}

/* n^m >= me^(m-k) * md^k, for m <= 512 and every factor < 2^32. */
static int reaches(uint64_t n, int64_t k, int64_t m, int64_t me, int64_t md) {
  const double l = (double)m * log((double)n) - (double)(m - k) * log((double)me) - (double)k * log((double)md);
  if (l > 1e-9) return 1;
  if (l < -1e-9) return 0;
  static _Thread_local uint32_t a[520], b[520];
  int la = 1, lb = 1;
  a[0] = b[0] = 1;
  for (int64_t i = 0; i < m; ++i) times(a, &la, n);
  for (int64_t i = 0; i < m - k; ++i) times(b, &lb, (uint64_t)me);
  for (int64_t i = 0; i < k; ++i) times(b, &lb, (uint64_t)md);
  if (la != lb) return la > lb;
  for (int i = la - 1; i >= 0; --i)
    if (a[i] != b[i]) return a[i] > b[i];
  return 1;
}

static int64_t bucket(int64_t r, int64_t num_buckets, int64_t md, int bidirectional) {
#if MUTANT(20) /* pos_m20: query minus key, the sign convention flipped */
  r = -r;
#endif
  int64_t nb = num_buckets, offset = 0;
  uint64_t n;
  if (bidirectional) {
    nb = num_buckets / 2;
    offset = r > 0 ? nb : 0;
    n = (uint64_t)(r < 0 ? -r : r);
  } else {
#if MUTANT(22) /* pos_m22: causal buckets keep the keys after the query (|r|) */
    n = (uint64_t)(r < 0 ? -r : r);
#else
    n = (uint64_t)(r < 0 ? -r : 0);
#endif
  }
  const int64_t me = nb / 2, m = nb - me;
  if (n < (uint64_t)me) return offset + (int64_t)n;
#if MUTANT(21) /* pos_m21: the log scale over ln(max_distance), not ln(max_distance / max_exact) */
  const double v = (double)m * log((double)n / (double)me) / log((double)md);
#else
  const double v = (double)m * log((double)n / (double)me) / log((double)md / (double)me);
#endif
  int64_t k = v >= (double)(m - 1) ? m - 1 : (int64_t)v;
#if MUTANT(21) /* the exact correction would repair the estimate: skipped */
  (void)reaches;
#else
  while (k + 1 <= m - 1 && reaches(n, k + 1, m, me, md)) ++k;
  while (k > 0 && !reaches(n, k, m, me, md)) --k;
#endif
  return offset + me + k;
}

tl_status tl_relative_pos_embedding_f32(const float* table, const int32_t* q_pos, const int32_t* k_pos, float* bias,
                                        int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                        int bidirectional) {
  if (Lq < 0 || Lk < 0 || H < 1) return fail(TL_ERR_INVALID_ARGUMENT, "bad sizes");
  if (bidirectional != 0 && bidirectional != 1) return fail(TL_ERR_INVALID_ARGUMENT, "bidirectional is 0 or 1");
  const int64_t side = bidirectional ? num_buckets / 2 : num_buckets;
  if (side < 2 || num_buckets > 1024 || H > INT32_MAX / num_buckets)
    return fail(TL_ERR_INVALID_ARGUMENT, "bad num_buckets");
  if (max_distance <= side / 2 || max_distance > INT32_MAX) return fail(TL_ERR_INVALID_ARGUMENT, "bad max_distance");
  for (int64_t i = 0; i < Lq; ++i)
    for (int64_t j = 0; j < Lk; ++j) {
      const int64_t b = bucket((int64_t)k_pos[j] - (int64_t)q_pos[i], num_buckets, max_distance, bidirectional);
      for (int64_t h = 0; h < H; ++h) bias[(h * Lq + i) * Lk + j] = table[b * H + h];
    }
  return TL_OK;
}
