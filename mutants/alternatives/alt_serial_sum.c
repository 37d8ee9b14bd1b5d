/* alt_serial_sum.c: Softmax along every axis and the norms of tinyllm/norm.h
 * with every reduction a plain left-to-right float sum, one float
 * accumulator per line (what oneDNN and PyTorch do for a softmax along a
 * non-last axis): n - 1 roundings deep, the worst-case error (n - 1) u of the
 * sum of magnitudes, not the log2(n) of pairwise summation.
 *
 * Correct by the spec: its default limits admit any summation order, so this
 * plugin passes the default profile and fails --profile strict on long rows
 * (docs/tolerances.md#profiles). RmsNorm is the exception the spec makes: its
 * 1e-6 is tighter than a serial sum at D = 4097, so RmsNorm here sums its
 * squares in double (exported only for the properties that call it as a
 * companion). A row whose float sum of squares leaves the normal range
 * (squares of values near 1e-20 underflow) is summed again in double: range,
 * not order. exp and sqrt are libm's.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "tinyllm/activations.h"
#include "tinyllm/norm.h"

/* ---- softmax ------------------------------------------------------------------ */

tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  if (rank < 1 || rank > 4 || shape == NULL || axis < -rank || axis >= rank) return TL_ERR_INVALID_ARGUMENT;
  const int a = axis < 0 ? axis + rank : axis;
  int64_t outer = 1, length = 1, inner = 1;
  double nonzero = 1; /* the product of the non-zero dims, against 2^63 */
  for (int k = 0; k < rank; ++k) {
    if (shape[k] < 0) return TL_ERR_INVALID_ARGUMENT;
    if (shape[k] > 0) nonzero *= (double)shape[k];
  }
  if (nonzero >= 9223372036854775807.0) return TL_ERR_INVALID_ARGUMENT;
  for (int k = 0; k < rank; ++k) {
    if (k < a) outer *= shape[k];
    else if (k == a) length = shape[k];
    else inner *= shape[k];
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const float* xl = x + o * length * inner + j;
      float* yl = y + o * length * inner + j;
      float m = -INFINITY, sum = 0.0f;
      for (int64_t l = 0; l < length; ++l) m = isnan(xl[l * inner]) || isnan(m) ? NAN : fmaxf(m, xl[l * inner]);
      for (int64_t l = 0; l < length; ++l) sum += expf(xl[l * inner] - m);
      for (int64_t l = 0; l < length; ++l) yl[l * inner] = expf(xl[l * inner] - m) / sum;
    }
  return TL_OK;
}

/* ---- norms: validation as the header states it --------------------------------- */

static tl_status check_common(const int64_t* shape, int32_t ndim, int32_t min_ndim, float eps) {
  int64_t elements = 1;
  if (ndim < min_ndim || ndim > TL_NORM_MAX_DIMS || shape == NULL) return TL_ERR_INVALID_ARGUMENT;
  for (int32_t k = 0; k < ndim; ++k)
    if (shape[k] < 0) return TL_ERR_INVALID_ARGUMENT;
  for (int32_t k = 0; k < ndim; ++k) {
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

/* ---- norms: the serial sums ------------------------------------------------------ */

/* Two passes of float sums in index order: the mean, then the squared
 * deviations; 1 / sqrt(var + eps) in float. */
static void serial_moments(const float* x, int64_t n, float eps, float* mean_out, float* inv_out) {
  float sum = 0.0f, sq = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const float mean = sum / (float)n;
  for (int64_t i = 0; i < n; ++i) {
    const float d = x[i] - mean;
    sq += d * d;
  }
  float var = sq / (float)n;
  if (!(var >= FLT_MIN) || isinf(var)) { /* squares out of the normal range: redo in double */
    double acc = 0.0;
    for (int64_t i = 0; i < n; ++i) acc += ((double)x[i] - mean) * ((double)x[i] - mean);
    *mean_out = mean;
    *inv_out = (float)(1.0 / sqrt(acc / (double)n + eps));
    return;
  }
  *mean_out = mean;
  *inv_out = 1.0f / sqrtf(var + eps);
}

/* 1 / sqrt(mean(x^2) + eps): float serial, or double (RmsNorm's spec). */
static float rms_inv(const float* x, int64_t n, float eps, int in_double) {
  float sq = 0.0f;
  for (int64_t i = 0; i < n && !in_double; ++i) sq += x[i] * x[i];
  const float ms = sq / (float)n;
  if (in_double || !(ms >= FLT_MIN) || isinf(ms)) {
    double acc = 0.0;
    for (int64_t i = 0; i < n; ++i) acc += (double)x[i] * x[i];
    return (float)(1.0 / sqrt(acc / (double)n + eps));
  }
  return 1.0f / sqrtf(ms + eps);
}

static void rms_rows(const float* x, const float* g, float* y, int64_t rows, int64_t d, float eps, int in_double) {
  for (int64_t r = 0; r < rows; ++r) {
    const float inv = rms_inv(x + r * d, d, eps, in_double);
    for (int64_t i = 0; i < d; ++i) y[r * d + i] = x[r * d + i] * inv * g[i];
  }
}

/* ---- norms: the ops ---------------------------------------------------------------- */

tl_status tl_rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps) {
  tl_status s = check_common(shape, ndim, 1, eps);
  if (s != TL_OK) return s;
  if (shape[ndim - 1] == 0) return TL_ERR_SHAPE;
  rms_rows(x, g, y, product(shape, 0, ndim - 1), shape[ndim - 1], eps, 1);
  return TL_OK;
}

tl_status tl_fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                                 const int64_t* shape, int32_t ndim, float eps) {
  tl_status s = check_common(shape, ndim, 1, eps);
  if (s != TL_OK) return s;
  if (shape[ndim - 1] == 0) return TL_ERR_SHAPE;
  const int64_t rows = product(shape, 0, ndim - 1), d = shape[ndim - 1];
  for (int64_t k = 0; k < rows * d; ++k) sum[k] = x[k] + skip[k];
  rms_rows(sum, g, y, rows, d, eps, 0);
  return TL_OK;
}

tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  tl_status s = check_common(shape, ndim, 1, eps);
  if (s != TL_OK) return s;
  if (shape[ndim - 1] == 0) return TL_ERR_SHAPE;
  const int64_t rows = product(shape, 0, ndim - 1), d = shape[ndim - 1];
  for (int64_t r = 0; r < rows; ++r) {
    float mean, inv;
    serial_moments(x + r * d, d, eps, &mean, &inv);
    for (int64_t i = 0; i < d; ++i) y[r * d + i] = (x[r * d + i] - mean) * inv * g[i] + b[i];
  }
  return TL_OK;
}

tl_status tl_batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b,
                            float* y, const int64_t* shape, int32_t ndim, float eps) {
  tl_status s = check_common(shape, ndim, 2, eps);
  if (s != TL_OK) return s;
  const int64_t c = shape[1], sp = product(shape, 2, ndim);
  for (int64_t k = 0; k < shape[0] * c; ++k) {
    const int64_t ch = k % c;
    const float inv = 1.0f / sqrtf(var[ch] + eps);
    for (int64_t i = k * sp; i < (k + 1) * sp; ++i) y[i] = (x[i] - mean[ch]) * inv * g[ch] + b[ch];
  }
  return TL_OK;
}

static void grouped(const float* x, const float* g, const float* b, float* y, int64_t n, int64_t c, int64_t sp,
                    int64_t groups, float eps) {
  const int64_t per = c / groups;
  for (int64_t k = 0; k < n * groups; ++k) {
    float mean, inv;
    const int64_t first = (k % groups) * per;
    serial_moments(x + k * per * sp, per * sp, eps, &mean, &inv);
    for (int64_t j = 0; j < per; ++j)
      for (int64_t t = 0; t < sp; ++t) {
        const int64_t at = (k * per + j) * sp + t;
        y[at] = (x[at] - mean) * inv * g[first + j] + b[first + j];
      }
  }
}

tl_status tl_group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps) {
  tl_status s = check_common(shape, ndim, 2, eps);
  if (s != TL_OK) return s;
  const int64_t sp = product(shape, 2, ndim);
  if (sp == 0) return TL_ERR_SHAPE;
  if (num_groups < 1) return TL_ERR_INVALID_ARGUMENT;
  if (shape[1] == 0 || shape[1] % num_groups != 0) return TL_ERR_SHAPE;
  grouped(x, g, b, y, shape[0], shape[1], sp, num_groups, eps);
  return TL_OK;
}

tl_status tl_instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                               int32_t ndim, float eps) {
  tl_status s = check_common(shape, ndim, 2, eps);
  if (s != TL_OK) return s;
  const int64_t sp = product(shape, 2, ndim);
  if (sp == 0) return TL_ERR_SHAPE;
  if (shape[1] > 0) grouped(x, g, b, y, shape[0], shape[1], sp, shape[1], eps);
  return TL_OK;
}

/* AdaLN rows: t = (x - mean) * inv, y = t * (1 + scale) + shift. */
static void ada_rows(const float* x, const float* scale, const float* shift, float* y, int64_t batch, int64_t tokens,
                     int64_t d, float eps) {
  for (int64_t r = 0; r < batch * tokens; ++r) {
    const float *sc = scale + (r / tokens) * d, *sh = shift + (r / tokens) * d;
    float mean, inv;
    serial_moments(x + r * d, d, eps, &mean, &inv);
    for (int64_t i = 0; i < d; ++i) y[r * d + i] = (x[r * d + i] - mean) * inv * (1.0f + sc[i]) + sh[i];
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
  int64_t batch, tokens, d;
  tl_status s = samples_of(shape, ndim, eps, &batch, &tokens, &d);
  if (s != TL_OK) return s;
  for (int64_t k = 0; k < batch * tokens * d; ++k) {
    volatile float product = gate[(k / (tokens * d)) * d + k % d] * r[k]; /* rounded: no contraction */
    h[k] = x[k] + product;
  }
  ada_rows(h, scale, shift, y, batch, tokens, d, eps);
  return TL_OK;
}
