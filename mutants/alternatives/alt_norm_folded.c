/* alt_norm_folded.c: a correct plugin of tinyllm/norm.h that rounds differently
 * from the oracle, the base and libtl_kernels, to show the tolerances and
 * their scales hold for other honest ways of computing the same ops:
 *
 *   - moments by Welford's one-pass update (in double), not two passes;
 *   - the affine folded into one fused multiply-add per element,
 *     y = fmaf(x, a, c) with a = g * inv and c = b - mean * a in float, whose
 *     c cancels when |mean| >> std (the scale's |g| mean|x| inv term covers it);
 *   - AdaLN as fmaf(t, scale, t) + shift, i.e. t + t * scale;
 *   - RmsNorm's sum of squares in float, Kahan-compensated, no double.
 *
 * The outputs that are exact by contract (FusedSkipNorm's sum, AdaLN-Zero's h)
 * are the same float operations as anywhere. Verdict: pass.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "tinyllm/norm.h"

/* ---- validation (as the header states it) ----------------------------------- */

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
  if (!(eps >= 0.0f) || isinf(eps)) return TL_ERR_INVALID_ARGUMENT;
  return TL_OK;
}

static int64_t product(const int64_t* shape, int32_t begin, int32_t end) {
  int64_t p = 1;
  for (; begin < end; ++begin) p *= shape[begin];
  return p;
}

/* ---- pieces ------------------------------------------------------------------ */

/* Welford: mean and 1 / sqrt(M2 / n + eps) in one pass. */
static void welford(const float* x, int64_t n, float eps, float* mean_out, float* inv_out) {
  double mean = 0.0, m2 = 0.0;
  int64_t i;
  for (i = 0; i < n; ++i) {
    const double delta = x[i] - mean;
    mean += delta / (double)(i + 1);
    m2 += delta * (x[i] - mean);
  }
  *mean_out = (float)mean;
  *inv_out = (float)(1.0 / sqrt(m2 / (double)n + eps));
}

/* y[i] = fmaf(x[i], a, c) with a = gain * inv, c = bias - mean * a. */
static float folded(float x, float mean, float inv, float gain, float bias) {
  const float a = gain * inv;
  const float c = fmaf(-mean, a, bias);
  return fmaf(x, a, c);
}

/* Kahan-compensated float sum of squares. */
static float sum_of_squares(const float* x, int64_t n) {
  float sum = 0.0f, comp = 0.0f;
  int64_t i;
  for (i = 0; i < n; ++i) {
    const float term = x[i] * x[i] - comp;
    const float next = sum + term;
    comp = (next - sum) - term;
    sum = next;
  }
  return sum;
}

static void rms_rows(const float* x, const float* g, float* y, int64_t rows, int64_t d, float eps) {
  int64_t r, i;
  for (r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    const float sq = sum_of_squares(xr, d);
    /* mean square in float; squares that overflow or underflow redone in double */
    double ms = (double)sq / (double)d;
    if (!(fabs(ms) < HUGE_VAL) || ms < 0x1p-100) {
      double acc = 0.0;
      for (i = 0; i < d; ++i) acc += (double)xr[i] * xr[i];
      ms = acc / (double)d;
    }
    const float inv = (float)(1.0 / sqrt(ms + eps));
    for (i = 0; i < d; ++i) y[r * d + i] = xr[i] * inv * g[i];
  }
}

/* ---- the ops ----------------------------------------------------------------- */

tl_status tl_rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps) {
  tl_status s = check_common(shape, ndim, 1, eps);
  if (s != TL_OK) return s;
  if (shape[ndim - 1] == 0) return TL_ERR_SHAPE;
  rms_rows(x, g, y, product(shape, 0, ndim - 1), shape[ndim - 1], eps);
  return TL_OK;
}

tl_status tl_fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                                 const int64_t* shape, int32_t ndim, float eps) {
  int64_t k, rows, d;
  tl_status s = check_common(shape, ndim, 1, eps);
  if (s != TL_OK) return s;
  if (shape[ndim - 1] == 0) return TL_ERR_SHAPE;
  rows = product(shape, 0, ndim - 1);
  d = shape[ndim - 1];
  for (k = 0; k < rows * d; ++k) sum[k] = x[k] + skip[k];
  rms_rows(sum, g, y, rows, d, eps);
  return TL_OK;
}

tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  int64_t r, i, rows, d;
  tl_status s = check_common(shape, ndim, 1, eps);
  if (s != TL_OK) return s;
  if (shape[ndim - 1] == 0) return TL_ERR_SHAPE;
  rows = product(shape, 0, ndim - 1);
  d = shape[ndim - 1];
  for (r = 0; r < rows; ++r) {
    float mean, inv;
    welford(x + r * d, d, eps, &mean, &inv);
    for (i = 0; i < d; ++i) y[r * d + i] = folded(x[r * d + i], mean, inv, g[i], b[i]);
  }
  return TL_OK;
}

tl_status tl_batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b,
                            float* y, const int64_t* shape, int32_t ndim, float eps) {
  int64_t n, c, sp, k, i;
  tl_status s = check_common(shape, ndim, 2, eps);
  if (s != TL_OK) return s;
  n = shape[0];
  c = shape[1];
  sp = product(shape, 2, ndim);
  for (k = 0; k < n * c; ++k) {
    const int64_t ch = k % c;
    const float inv = 1.0f / sqrtf(var[ch] + eps);
    for (i = k * sp; i < (k + 1) * sp; ++i) y[i] = folded(x[i], mean[ch], inv, g[ch], b[ch]);
  }
  return TL_OK;
}

static void grouped(const float* x, const float* g, const float* b, float* y, int64_t n, int64_t c, int64_t sp,
                    int64_t groups, float eps) {
  const int64_t per = c / groups;
  int64_t k, j, t;
  for (k = 0; k < n * groups; ++k) {
    float mean, inv;
    const int64_t first = (k % groups) * per;
    welford(x + k * per * sp, per * sp, eps, &mean, &inv);
    for (j = 0; j < per; ++j)
      for (t = 0; t < sp; ++t) {
        const int64_t at = (k * per + j) * sp + t;
        y[at] = folded(x[at], mean, inv, g[first + j], b[first + j]);
      }
  }
}

tl_status tl_group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps) {
  int64_t sp;
  tl_status s = check_common(shape, ndim, 2, eps);
  if (s != TL_OK) return s;
  sp = product(shape, 2, ndim);
  if (sp == 0) return TL_ERR_SHAPE;
  if (num_groups < 1) return TL_ERR_INVALID_ARGUMENT;
  if (shape[1] == 0 || shape[1] % num_groups != 0) return TL_ERR_SHAPE;
  grouped(x, g, b, y, shape[0], shape[1], sp, num_groups, eps);
  return TL_OK;
}

tl_status tl_instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                               int32_t ndim, float eps) {
  int64_t sp;
  tl_status s = check_common(shape, ndim, 2, eps);
  if (s != TL_OK) return s;
  sp = product(shape, 2, ndim);
  if (sp == 0) return TL_ERR_SHAPE;
  if (shape[1] > 0) grouped(x, g, b, y, shape[0], shape[1], sp, shape[1], eps);
  return TL_OK;
}

/* AdaLN rows: t = (x - mean) * inv, y = fmaf(t, scale, t) + shift. */
static void ada_rows(const float* x, const float* scale, const float* shift, float* y, int64_t batch, int64_t tokens,
                     int64_t d, float eps) {
  int64_t r, i;
  for (r = 0; r < batch * tokens; ++r) {
    const float *sc = scale + (r / tokens) * d, *sh = shift + (r / tokens) * d;
    float mean, inv;
    welford(x + r * d, d, eps, &mean, &inv);
    for (i = 0; i < d; ++i) {
      const float t = (x[r * d + i] - mean) * inv;
      y[r * d + i] = fmaf(t, sc[i], t) + sh[i];
    }
  }
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

tl_status tl_ada_ln_f32(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                        int32_t ndim, float eps) {
  int64_t batch, tokens, d;
  tl_status s = samples_of(shape, ndim, eps, &batch, &tokens, &d);
  if (s != TL_OK) return s;
  ada_rows(x, scale, shift, y, batch, tokens, d, eps);
  return TL_OK;
}

tl_status tl_ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                             float* h, float* y, const int64_t* shape, int32_t ndim, float eps) {
  int64_t batch, tokens, d, k;
  tl_status s = samples_of(shape, ndim, eps, &batch, &tokens, &d);
  if (s != TL_OK) return s;
  for (k = 0; k < batch * tokens * d; ++k) {
    volatile float product = gate[(k / (tokens * d)) * d + k % d] * r[k]; /* rounded: no contraction */
    h[k] = x[k] + product;
  }
  ada_rows(h, scale, shift, y, batch, tokens, d, eps);
  return TL_OK;
}
