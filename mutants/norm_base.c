/* norm_base.c: the ops of tinyllm/norm.h, plain C11, and their mutants.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is a correct plugin
 * (konform_norm_base). Compiled with -DKONFORM_MUTANT=N it is mutant norm_mNN:
 * exactly one pitfall switched on, everything else identical, so the harness
 * has one defect to find. Every `#if MUTANT(N)` block is the whole of mutant N;
 * mutants/manifest.tsv names the check that must catch each one.
 *
 * Statistics are two-pass and accumulate in double, so the base sits well
 * inside every limit and a mutant fails for its pitfall, not for rounding.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "tinyllm/norm.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 22
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..22 (mutant norm_m01..norm_m22)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

/* ---- validation, as the header states it ---------------------------------- */

/* min_ndim <= ndim <= TL_NORM_MAX_DIMS, no negative dimension, the non-zero
 * dimensions' product below 2^61 (an int64_t byte count), eps finite >= 0. */
static tl_status check_common(const int64_t* shape, int32_t ndim, int32_t min_ndim, float eps) {
  int64_t elements = 1;
  int32_t k;
  if (ndim < min_ndim || ndim > TL_NORM_MAX_DIMS || shape == NULL) return TL_ERR_INVALID_ARGUMENT;
  for (k = 0; k < ndim; ++k)
    if (shape[k] < 0) return TL_ERR_INVALID_ARGUMENT;
  for (k = 0; k < ndim; ++k) {
    if (shape[k] == 0) continue;
    if (elements > (INT64_MAX / 4) / shape[k]) return TL_ERR_INVALID_ARGUMENT;
    elements *= shape[k];
  }
#if !MUTANT(20)
  if (!(eps >= 0.0f) || isinf(eps)) return TL_ERR_INVALID_ARGUMENT;
#else
  (void)eps; /* m20: eps never checked (a negative or NaN eps is accepted) */
#endif
  return TL_OK;
}

static int64_t product(const int64_t* shape, int32_t begin, int32_t end) {
  int64_t p = 1;
  for (; begin < end; ++begin) p *= shape[begin];
  return p;
}

/* [..., D]: rows x d. */
static tl_status rows_of(const int64_t* shape, int32_t ndim, float eps, int64_t* rows, int64_t* d) {
  tl_status s = check_common(shape, ndim, 1, eps);
  if (s != TL_OK) return s;
  if (shape[ndim - 1] == 0) return TL_ERR_SHAPE;
  *rows = product(shape, 0, ndim - 1);
  *d = shape[ndim - 1];
  return TL_OK;
}

/* [N, C, spatial...]: n x c x sp. */
static tl_status channels_of(const int64_t* shape, int32_t ndim, float eps, int need_spatial, int64_t* n, int64_t* c,
                             int64_t* sp) {
  tl_status s = check_common(shape, ndim, 2, eps);
  if (s != TL_OK) return s;
  *n = shape[0];
  *c = shape[1];
  *sp = product(shape, 2, ndim);
  if (need_spatial && *sp == 0) return TL_ERR_SHAPE;
  return TL_OK;
}

/* ---- shared pieces ----------------------------------------------------------- */

/* Mean and 1 / sqrt(var + eps) of x[0, n), two passes in double; the squared
 * deviations are divided by `divisor` (n, but for mutant m04). */
static void moments(const float* x, int64_t n, int64_t divisor, float eps, double* mean, double* inv) {
  double sum = 0.0, sq = 0.0;
  int64_t i;
#if MUTANT(22) /* m22: the mean's sum accumulated in half precision (11 significant bits): each addition errs by \
                * up to 2^-12 of the sum, beyond the bound of any summation order */
  for (i = 0; i < n; ++i) {
    int ex;
    const double m11 = frexp(sum + x[i], &ex);
    sum = ldexp(nearbyint(ldexp(m11, 11)), ex - 11);
  }
#else
  for (i = 0; i < n; ++i) sum += x[i];
#endif
  *mean = sum / (double)n;
#if MUTANT(5) /* m05: variance not mean-centred: mean(x^2) - mean^2, one pass, in float */
  {
    float s2 = 0.0f, s1 = 0.0f;
    for (i = 0; i < n; ++i) s2 += x[i] * x[i], s1 += x[i];
    const float m = s1 / (float)n;
    sq = (double)(s2 / (float)n - m * m) * (double)n;
  }
#else
  for (i = 0; i < n; ++i) sq += (x[i] - *mean) * (x[i] - *mean);
#endif
#if MUTANT(6) /* m06: eps after the square root */
  *inv = 1.0 / (sqrt(sq / (double)divisor) + eps);
#else
  *inv = 1.0 / sqrt(sq / (double)divisor + eps);
#endif
}

/* ---- RmsNorm and FusedSkipNorm ------------------------------------------------ */

/* Sum of squares of row r of x[rows, d]. */
static double row_sum_of_squares(const float* x, int64_t r, int64_t d) {
  double acc = 0.0;
  int64_t i;
#if MUTANT(3) /* m03: blocks of 64 aligned to the flat index r*d + i, summed in 8 float lanes: the row's \
               * summation order depends on where it sits in the batch */
  float lanes[8] = {0};
  int64_t block = (r * d) / 64;
  for (i = 0; i < d; ++i) {
    const int64_t flat = r * d + i;
    if (flat / 64 != block) {
      for (int k = 0; k < 8; ++k) acc += lanes[k], lanes[k] = 0.0f;
      block = flat / 64;
    }
    lanes[flat % 8] += x[flat] * x[flat];
  }
  for (int k = 0; k < 8; ++k) acc += lanes[k];
#else
  for (i = 0; i < d; ++i) acc += (double)x[r * d + i] * x[r * d + i];
#endif
  return acc;
}

/* y = x * inv * g per row; `tail` elements at the end of each row may be
 * skipped by the mutants that leave a SIMD tail unwritten. */
static void scale_rows(const float* x, const float* g, float* y, int64_t rows, int64_t d, float eps) {
  int64_t r, i;
  for (r = 0; r < rows; ++r) {
#if MUTANT(21) /* m21: a batched path for calls of more than one row (8 float lanes into a double), a decode \
                * path for one row (double): accurate both, but a row's bits depend on the number of rows */
    double sq = 0.0;
    if (rows > 1) {
      float lanes[8] = {0};
      for (i = 0; i < d; ++i) lanes[i % 8] += x[r * d + i] * x[r * d + i];
      for (int k = 0; k < 8; ++k) sq += lanes[k];
    } else {
      sq = row_sum_of_squares(x, r, d);
    }
#else
    const double sq = row_sum_of_squares(x, r, d);
#endif
#if MUTANT(1) /* m01: eps after the square root */
    const double inv = 1.0 / (sqrt(sq / (double)d) + eps);
#else
    const double inv = 1.0 / sqrt(sq / (double)d + eps);
#endif
    int64_t end = d;
#if MUTANT(2) /* m02: the row's last d % 8 elements (the SIMD tail) never written */
    end = d - d % 8;
#endif
    for (i = 0; i < end; ++i) y[r * d + i] = (float)(x[r * d + i] * inv * g[i]);
  }
}

tl_status tl_rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps) {
  int64_t rows, d;
  tl_status s = rows_of(shape, ndim, eps, &rows, &d);
  if (s != TL_OK) return s;
  scale_rows(x, g, y, rows, d, eps);
  return TL_OK;
}

tl_status tl_fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                                 const int64_t* shape, int32_t ndim, float eps) {
  int64_t rows, d, k;
  tl_status s = rows_of(shape, ndim, eps, &rows, &d);
  if (s != TL_OK) return s;
  for (k = 0; k < rows * d; ++k) {
#if MUTANT(19) /* m19: the last d % 4 elements of each row of sum (a SIMD tail) never written */
    if (k % d >= d - d % 4) continue;
#endif
    sum[k] = x[k] + skip[k];
  }
#if MUTANT(18) /* m18: y is the norm of x, not of x + skip */
  scale_rows(x, g, y, rows, d, eps);
#elif MUTANT(19)
  for (k = 0; k < rows * d; ++k) y[k] = x[k] + skip[k];
  scale_rows(y, g, y, rows, d, eps);
#else
  scale_rows(sum, g, y, rows, d, eps);
#endif
  return TL_OK;
}

/* ---- LayerNorm and AdaLN ------------------------------------------------------ */

/* y = (x - mean) * inv * gain[i] + bias[i] over one row; gain and bias may be
 * NULL for 1 and 0; `one_plus` adds 1 to the gain (AdaLN's 1 + scale). */
static void normalize_row(const float* x, float* y, int64_t d, int64_t divisor, float eps, const float* gain,
                          const float* bias, int one_plus) {
  double mean, inv;
  int64_t i;
  moments(x, d, divisor, eps, &mean, &inv);
  for (i = 0; i < d; ++i) {
    double gi = gain ? gain[i] : 1.0;
#if MUTANT(14) /* m14: AdaLN's (1 + scale) written as scale */
    (void)one_plus;
#else
    if (one_plus) gi = 1.0 + gi;
#endif
    y[i] = (float)((x[i] - mean) * inv * gi + (bias ? bias[i] : 0.0));
  }
}

tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  int64_t rows, d, r;
  tl_status s = rows_of(shape, ndim, eps, &rows, &d);
  if (s != TL_OK) return s;
#if MUTANT(4) /* m04: LayerNorm's variance divided by D - 1 (the unbiased estimator) */
  const int64_t divisor = d > 1 ? d - 1 : 1;
#else
  const int64_t divisor = d;
#endif
  for (r = 0; r < rows; ++r) normalize_row(x + r * d, y + r * d, d, divisor, eps, g, b, 0);
  return TL_OK;
}

static tl_status samples_of(const int64_t* shape, int32_t ndim, float eps, int64_t* batch, int64_t* tokens,
                            int64_t* d) {
  tl_status s = check_common(shape, ndim, 2, eps);
  if (s != TL_OK) return s;
  if (shape[ndim - 1] == 0) return TL_ERR_SHAPE;
  *batch = shape[0];
  *tokens = product(shape, 1, ndim - 1);
  *d = shape[ndim - 1];
  return TL_OK;
}

/* The sample whose conditioning row r of [batch * tokens] uses. */
static int64_t sample_of(int64_t r, int64_t batch, int64_t tokens) {
#if MUTANT(15) /* m15: the conditioning broadcast along the wrong axis: row % batch, not row / tokens */
  (void)tokens;
  return r % batch;
#else
  (void)batch;
  return r / tokens;
#endif
}

tl_status tl_ada_ln_f32(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                        int32_t ndim, float eps) {
  int64_t batch, tokens, d, r;
  tl_status s = samples_of(shape, ndim, eps, &batch, &tokens, &d);
  if (s != TL_OK) return s;
  for (r = 0; r < batch * tokens; ++r) {
    const int64_t k = sample_of(r, batch, tokens);
    normalize_row(x + r * d, y + r * d, d, d, eps, scale + k * d, shift + k * d, 1);
  }
  return TL_OK;
}

tl_status tl_ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                             float* h, float* y, const int64_t* shape, int32_t ndim, float eps) {
  int64_t batch, tokens, d, row, i;
  tl_status s = samples_of(shape, ndim, eps, &batch, &tokens, &d);
  if (s != TL_OK) return s;
  for (row = 0; row < batch * tokens; ++row) {
    const int64_t k = sample_of(row, batch, tokens);
    for (i = 0; i < d; ++i) {
      /* Two float roundings, as the unfused Mul then Add (no contraction:
       * the product is stored to a float first). */
      volatile float product = gate[k * d + i] * r[row * d + i];
#if MUTANT(16) /* m16: the gate ignored: h = x + r */
      product = r[row * d + i];
#endif
      h[row * d + i] = x[row * d + i] + product;
    }
#if MUTANT(17) /* m17: y normalizes x, the stream before the gated residual, not h */
    /* (with h == x, x is already overwritten: the mutant shows with separate buffers) */
    normalize_row(x + row * d, y + row * d, d, d, eps, scale + k * d, shift + k * d, 1);
#else
    normalize_row(h + row * d, y + row * d, d, d, eps, scale + k * d, shift + k * d, 1);
#endif
  }
  return TL_OK;
}

/* ---- BatchNorm, GroupNorm, InstanceNorm ------------------------------------- */

tl_status tl_batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b,
                            float* y, const int64_t* shape, int32_t ndim, float eps) {
  int64_t n, c, sp, k, i;
  tl_status s = channels_of(shape, ndim, eps, 0, &n, &c, &sp);
  if (s != TL_OK) return s;
  for (k = 0; k < n * c; ++k)
    for (i = k * sp; i < (k + 1) * sp; ++i) {
#if MUTANT(8) /* m08: the channel taken along the last axis (i % C) instead of axis 1 */
      const int64_t ch = i % c;
#else
      const int64_t ch = k % c;
#endif
      double m = mean[ch], v = var[ch];
#if MUTANT(7) /* m07: the batch's own statistics (training mode) instead of the running ones */
      {
        double sum = 0.0, sq = 0.0;
        int64_t cnt = n * sp, j, t;
        for (j = 0; j < n; ++j)
          for (t = 0; t < sp; ++t) sum += x[(j * c + ch) * sp + t];
        m = sum / (double)cnt;
        for (j = 0; j < n; ++j)
          for (t = 0; t < sp; ++t) sq += (x[(j * c + ch) * sp + t] - m) * (x[(j * c + ch) * sp + t] - m);
        v = sq / (double)cnt;
      }
#endif
      y[i] = (float)((x[i] - m) / sqrt(v + eps) * g[ch] + b[ch]);
    }
  return TL_OK;
}

/* GroupNorm of x[n, c, sp] with `groups` groups of consecutive channels. */
static void group_norm(const float* x, const float* g, const float* b, float* y, int64_t n, int64_t c, int64_t sp,
                       int64_t groups, float eps) {
  const int64_t per_group = c / groups;
  int64_t k, grp, j, t;
  for (k = 0; k < n; ++k)
    for (grp = 0; grp < groups; ++grp) {
      double mean, inv;
#if MUTANT(9) /* m09: group grp is the interleaved channels grp, grp + G, ... instead of consecutive ones */
      float buf[4096];
      int64_t cnt = 0;
      for (j = grp; j < c && cnt + sp <= 4096; j += groups)
        for (t = 0; t < sp; ++t) buf[cnt++] = x[(k * c + j) * sp + t];
      moments(buf, cnt, cnt, eps, &mean, &inv);
      for (j = grp; j < c; j += groups)
        for (t = 0; t < sp; ++t) {
          const int64_t at = (k * c + j) * sp + t;
          y[at] = (float)((x[at] - mean) * inv * g[j] + b[j]);
        }
      continue;
#elif MUTANT(10) /* m10: num_groups ignored: statistics over the whole sample (all C channels) */
      moments(x + k * c * sp, c * sp, c * sp, eps, &mean, &inv);
#elif MUTANT(12) /* m12: statistics per channel pooled over the whole batch (BatchNorm's axes) */
      {
        double sum = 0.0, sq = 0.0;
        int64_t s2;
        for (s2 = 0; s2 < n; ++s2)
          for (t = 0; t < per_group * sp; ++t) sum += x[(s2 * c + grp * per_group) * sp + t];
        mean = sum / (double)(n * per_group * sp);
        for (s2 = 0; s2 < n; ++s2)
          for (t = 0; t < per_group * sp; ++t) {
            const double dv = x[(s2 * c + grp * per_group) * sp + t] - mean;
            sq += dv * dv;
          }
        inv = 1.0 / sqrt(sq / (double)(n * per_group * sp) + eps);
      }
#else
      moments(x + (k * c + grp * per_group) * sp, per_group * sp, per_group * sp, eps, &mean, &inv);
#endif
      for (j = grp * per_group; j < (grp + 1) * per_group; ++j)
        for (t = 0; t < sp; ++t) {
          const int64_t at = (k * c + j) * sp + t;
          y[at] = (float)((x[at] - mean) * inv * g[j] + b[j]);
        }
    }
}

tl_status tl_group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps) {
  int64_t n, c, sp;
  tl_status s = channels_of(shape, ndim, eps, 1, &n, &c, &sp);
  if (s != TL_OK) return s;
  if (num_groups < 1) return TL_ERR_INVALID_ARGUMENT;
#if MUTANT(11) /* m11: num_groups not dividing C accepted: the last C % G channels left out of every group */
  if (c == 0 || c < num_groups) return TL_ERR_SHAPE;
  {
    const int64_t covered = c / num_groups * num_groups;
    int64_t k, i;
    for (k = 0; k < n; ++k) /* the channels past the last group pass through, normalized by nothing */
      for (i = (k * c + covered) * sp; i < (k + 1) * c * sp; ++i) y[i] = x[i];
  }
#else
  if (c == 0 || c % num_groups != 0) return TL_ERR_SHAPE;
#endif
  group_norm(x, g, b, y, n, c, sp, num_groups, eps);
  return TL_OK;
}

tl_status tl_instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                               int32_t ndim, float eps) {
  int64_t n, c, sp;
  tl_status s = channels_of(shape, ndim, eps, 1, &n, &c, &sp);
  if (s != TL_OK) return s;
#if MUTANT(13) /* m13: statistics over each row of the last dimension only, not over all spatial dims */
  {
    const int64_t w = ndim > 2 ? shape[ndim - 1] : 1;
    int64_t k, at;
    for (k = 0; k < n * c; ++k)
      for (at = k * sp; at < (k + 1) * sp; at += w) {
        double mean, inv;
        int64_t i;
        moments(x + at, w, w, eps, &mean, &inv);
        for (i = at; i < at + w; ++i) y[i] = (float)((x[i] - mean) * inv * g[k % c] + b[k % c]);
      }
    return TL_OK;
  }
#endif
  if (c > 0) group_norm(x, g, b, y, n, c, sp, c, eps);
  return TL_OK;
}
