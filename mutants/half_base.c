/* half_base.c: the f16 and bf16 activations (SwiGlu, GeGlu and Glu among
 * them) of tinyllm/activations.h, the casts, Clamp, NanToNum and the broadcast Add, Sub, Mul, Div of
 * tinyllm/tensor.h, RmsNorm, LayerNorm, BatchNorm, GroupNorm, InstanceNorm,
 * AdaLN, AdaLN-Zero and FusedSkipNorm of tinyllm/norm.h, Softmax, PRelu
 * (f32 slopes), Rope and its cos/sin cache, TokenEmbed, PosEmbed and
 * RelativePosEmbedding (T5's buckets decided exactly) of tinyllm/pos.h,
 * Matmul of tinyllm/linalg.h,
 * the feed-forwards (SwiGlu_FFN, GeGlu_FFN, Glu_FFN), FusedSwiGlu and
 * FusedNormMatmul of tinyllm/linalg.h, Sdpa, FlashAttention, SdpaCross,
 * SdpaWindow and QkNorm of tinyllm/attention.h, MultiAxisRope and
 * SinusoidalEmbed of tinyllm/pos.h, the f16 and bf16 KV caches of
 * tinyllm/kv_cache.h, Dequantize into f16 and bf16 and Quantize (Q8_0,
 * Q4_0) from them of tinyllm/quant.h, Sample of tinyllm/sampling.h, Argmax
 * of tinyllm/tensor.h on half logits, and Transpose, Permute, Reshape,
 * Concat, Split and Chunk of f16 and bf16 patterns (tinyllm/tensor.h) in
 * plain C11, and their mutants
 * (manifest ids half_mNN).
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is a correct plugin
 * (konform_plugin_half_base) of those ops and their f32 twins, written apart
 * from the in-tree kernels: f16 widened from its bit fields and rounded
 * through the compiler's _Float16 conversion, bf16 rounded half up with the
 * ties fixed to even afterwards, and the spec's own f32 formulas (silu as
 * x / (1 + e^-x), sigmoid as 1 / (1 + e^-x), libm's erff and tanhf). With
 * -DKONFORM_MUTANT=N exactly one mistake of half precision is switched on;
 * every `#if MUTANT(N)` is the whole of mutant half_mNN, and
 * mutants/manifest.tsv names the check that must catch it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tinyllm/activations.h"
#include "tinyllm/attention.h"
#include "tinyllm/kv_cache.h"
#include "tinyllm/linalg.h"
#include "tinyllm/norm.h"
#include "tinyllm/pos.h"
#include "tinyllm/quant.h"
#include "tinyllm/sampling.h"
#include "tinyllm/tensor.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 71
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..71 (mutant half_m01..half_m71)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

static const char* last_error = "";
const char* tl_last_error(void) { return last_error; }

/* A refusal of tinyllm/status.h: the status, and words for tl_last_error. */
static tl_status refuse(const char* why) {
  last_error = why;
  return TL_ERR_INVALID_ARGUMENT;
}

/* ---- the two formats -------------------------------------------------------- */

/* Widened from its bit fields, exactly: the compiler's _Float16 widening is
 * a libgcc call without F16C, and made the base's Matmul and FlashAttention
 * take minutes. A NaN comes out quiet, its payload kept, as F16C's does. */
static float from_f16(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = (float)m * 0x1p-24f; /* zero or subnormal: m 2^-24 */
    return sign ? -v : v;
  }
  const uint32_t b = sign | (e == 0x1fu ? 0x7f800000u | (m ? 0x400000u : 0u) : (e + 112u) << 23) | (m << 13);
  float f;
  memcpy(&f, &b, 4);
  return f;
}

#if MUTANT(1) || MUTANT(6) || MUTANT(15) || MUTANT(27)
/* The f32 bits cut to f16: truncation, the mistake of mutants 1, 6 and 27. */
static uint16_t truncated_f16(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  const uint32_t sign = (b >> 16) & 0x8000u, a = b & 0x7fffffffu;
  if (a >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u));
  if (a >= 0x47800000u) return (uint16_t)(sign | 0x7c00u);
  if (a < 0x38800000u) return (uint16_t)(sign | (uint32_t)(ldexpf(fabsf(f), 24)));
  return (uint16_t)(sign | ((a - (112u << 23)) >> 13));
}
#endif

static uint16_t to_f16(float f) {
  uint16_t h;
#if MUTANT(1) /* f16 results truncated, not rounded to nearest even */
  return truncated_f16(f);
#elif MUTANT(3) /* overflow saturated to +-65504 instead of an infinity */
  if (fabsf(f) > 65504.0f) f = copysignf(65504.0f, f);
#elif MUTANT(4) /* f16 subnormal results flushed to zero (FTZ on the way out) */
  if (fabsf(f) < 0x1p-14f) f = copysignf(0.0f, f);
#endif
  const _Float16 v = (_Float16)f;
  memcpy(&h, &v, 2);
  return h;
}

static float from_bf16(uint16_t h) {
  const uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static uint16_t to_bf16(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  if (isnan(f)) return (uint16_t)((b >> 16) | 0x40u);
#if MUTANT(2) /* bf16 as the top 16 bits of the f32 (truncation) */
  return (uint16_t)(b >> 16);
#else
  uint16_t r = (uint16_t)((b + 0x8000u) >> 16);     /* half up */
  if ((b & 0xffffu) == 0x8000u) r &= (uint16_t)~1u; /* a tie goes to even */
  return r;
#endif
}

/* Element i of n: the vector body and the tail alike, */
static uint16_t to_f16_at(float f, int64_t i, int64_t n) {
#if MUTANT(6) || MUTANT(15) /* but a scalar tail (the last n % 8) that truncates: results depend on n */
  if (i >= n - n % 8) return truncated_f16(f);
#endif
  (void)i;
  (void)n;
  return to_f16(f);
}

/* ---- one value, in float ---------------------------------------------------- */

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
static float silu(float x) { return x / (1.0f + expf(-x)); }
static float gelu_erf(float x) { return x * 0.5f * (1.0f + erff(x / sqrtf(2.0f))); }
static float gelu_tanh(float x) { return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x))); }
static float relu(float x) { return x > 0.0f || isnan(x) ? x : 0.0f; }

/* Sigmoid of the f16 op. */
static float sigmoid_f16(float x) {
#if MUTANT(5) /* e^-x held in f16 between the steps: it overflows from x = -11.09 on, giving 0 */
  const float e = from_f16(to_f16(expf(-x)));
  return 1.0f / (1.0f + e);
#else
  return sigmoid(x);
#endif
}

/* ---- the arrays: each element read before its result is written ------------- */

/* Each op in f32 too (the properties compare the half ops with it). */
#define HALF_UNARY(name, f)                                                    \
  void tl_##name##_f32(const float* x, float* y, int64_t n) {                  \
    for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);                            \
  }                                                                            \
  void tl_##name##_f16(const uint16_t* x, uint16_t* y, int64_t n) {            \
    for (int64_t i = 0; i < n; ++i) y[i] = to_f16_at(f(from_f16(x[i])), i, n); \
  }                                                                            \
  void tl_##name##_bf16(const uint16_t* x, uint16_t* y, int64_t n) {           \
    for (int64_t i = 0; i < n; ++i) y[i] = to_bf16(f(from_bf16(x[i])));        \
  }
HALF_UNARY(silu, silu)
HALF_UNARY(gelu_erf, gelu_erf)
HALF_UNARY(gelu_tanh, gelu_tanh)
#if MUTANT(70) || MUTANT(71)
/* Relu on the 16-bit patterns, never widened (as the simd backend's): read
 * as int16 a negative value, -0 included, is below 0, so max(x, 0) is +0. */
static uint16_t relu_bits(uint16_t h, uint16_t inf) {
#if MUTANT(70) /* half_m70: the signed max alone: a negative NaN comes out +0 */
  (void)inf;
#else /* half_m71: correct: a NaN passed as it is, a signalling one still signalling */
  if ((h & 0x7fff) > inf) return h;
#endif
  return (h & 0x8000) ? 0 : h;
}
void tl_relu_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = relu(x[i]);
}
void tl_relu_f16(const uint16_t* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = relu_bits(x[i], 0x7c00);
}
void tl_relu_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = relu_bits(x[i], 0x7f80);
}
#else
HALF_UNARY(relu, relu)
#endif
HALF_UNARY(tanh, tanhf)

void tl_sigmoid_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = sigmoid(x[i]);
}
void tl_sigmoid_f16(const uint16_t* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = to_f16_at(sigmoid_f16(from_f16(x[i])), i, n);
}
void tl_sigmoid_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = to_bf16(sigmoid(from_bf16(x[i])));
}

static float leaky(float x, float alpha) { return x > 0.0f ? x : alpha * x; }
void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) y[i] = leaky(x[i], alpha);
}
void tl_leaky_relu_f16(const uint16_t* x, uint16_t* y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) y[i] = to_f16_at(leaky(from_f16(x[i]), alpha), i, n);
}
void tl_leaky_relu_bf16(const uint16_t* x, uint16_t* y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) y[i] = to_bf16(leaky(from_bf16(x[i]), alpha));
}

/* ---- the casts of tinyllm/tensor.h ------------------------------------------- */

void tl_cast_f32_to_f16(const float* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = to_f16(x[i]);
}
void tl_cast_f32_to_bf16(const float* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = to_bf16(x[i]);
}
void tl_cast_f16_to_f32(const uint16_t* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = from_f16(x[i]);
}
void tl_cast_bf16_to_f32(const uint16_t* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = from_bf16(x[i]);
}

/* ---- Clamp and NanToNum of tinyllm/tensor.h ---------------------------------- */

static const char* bad_elementwise(const void* x, const void* y, int64_t n) {
  if (n < 0) return "n < 0";
  if (n > 0 && (x == NULL || y == NULL)) return "x or y is NULL";
  return NULL;
}

static const char* bad_clamp(const void* x, const void* y, int64_t n, float lo, float hi) {
  if (isnan(lo) || isnan(hi)) return "a clamp bound is NaN";
  if (lo > hi) return "clamp needs lo <= hi";
  return bad_elementwise(x, y, n);
}

static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

/* In f32 too (the properties compare the half ops with it). */
tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  const char* bad = bad_clamp(x, y, n, lo, hi);
  if (bad) return refuse(bad);
  for (int64_t i = 0; i < n; ++i) y[i] = clampf(x[i], lo, hi);
  return TL_OK;
}

tl_status tl_clamp_f16(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) {
  const char* bad = bad_clamp(x, y, n, lo, hi);
  if (bad) return refuse(bad);
#if MUTANT(8) /* bounds and x compared as 16-bit signed integers: right for the positives, reversed for negatives */
  const int16_t l = (int16_t)to_f16(lo), h = (int16_t)to_f16(hi);
  for (int64_t i = 0; i < n; ++i) {
    const int16_t v = (int16_t)x[i];
    y[i] = isnan(from_f16(x[i])) ? x[i] : v < l ? (uint16_t)l : v > h ? (uint16_t)h : x[i];
  }
#else
  for (int64_t i = 0; i < n; ++i) y[i] = to_f16_at(clampf(from_f16(x[i]), lo, hi), i, n);
#endif
  return TL_OK;
}
tl_status tl_clamp_bf16(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) {
  const char* bad = bad_clamp(x, y, n, lo, hi);
  if (bad) return refuse(bad);
  for (int64_t i = 0; i < n; ++i) y[i] = to_bf16(clampf(from_bf16(x[i]), lo, hi));
  return TL_OK;
}

static float replace(float x, float nan, float posinf, float neginf) {
  return isnan(x) ? nan : x == INFINITY ? posinf : x == -INFINITY ? neginf : x;
}

tl_status tl_nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  const char* bad = bad_elementwise(x, y, n);
  if (bad) return refuse(bad);
  for (int64_t i = 0; i < n; ++i) y[i] = replace(x[i], nan, posinf, neginf);
  return TL_OK;
}

tl_status tl_nan_to_num_f16(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf) {
  const char* bad = bad_elementwise(x, y, n);
  if (bad) return refuse(bad);
  for (int64_t i = 0; i < n; ++i) y[i] = to_f16_at(replace(from_f16(x[i]), nan, posinf, neginf), i, n);
  return TL_OK;
}
tl_status tl_nan_to_num_bf16(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf) {
  const char* bad = bad_elementwise(x, y, n);
  if (bad) return refuse(bad);
  for (int64_t i = 0; i < n; ++i) {
#if MUTANT(7) /* a NaN known by the canonical quiet pattern alone: other payloads kept as if numbers */
    if ((x[i] & 0x7fffu) == 0x7fc0u) {
      y[i] = to_bf16(nan);
      continue;
    }
    const float v = from_bf16(x[i]);
    y[i] = to_bf16(v == INFINITY ? posinf : v == -INFINITY ? neginf : v);
#else
    y[i] = to_bf16(replace(from_bf16(x[i]), nan, posinf, neginf));
#endif
  }
  return TL_OK;
}

/* ---- RmsNorm of tinyllm/norm.h: x and y f32, f16 or bf16, g f32 ------------- */

/* A float row of d, or NULL with the words for tl_last_error. */
static float* new_row(int64_t d) {
  float* row = malloc((size_t)d * sizeof(float));
  if (row == NULL) last_error = "out of memory for a row";
  return row;
}

/* The refusals of the header every norm shares: ndim in [least, 8], the
 * dimensions, their product, eps. */
static tl_status norm_dims(const int64_t* shape, int32_t ndim, int32_t least, float eps) {
  if (ndim < least || ndim > TL_NORM_MAX_DIMS)
    return refuse(least == 1 ? "ndim outside [1, 8]" : "ndim outside [2, 8]");
  if (shape == NULL) return refuse("shape is NULL");
  int64_t elements = 1;
  for (int32_t k = 0; k < ndim; ++k) {
    if (shape[k] < 0) return refuse("a negative dimension");
    if (shape[k] > 0 && __builtin_mul_overflow(elements, shape[k], &elements)) return refuse("too many elements");
  }
  if (elements > INT64_MAX / 4) return refuse("too many elements");
  if (!(eps >= 0.0f) || isinf(eps)) return refuse("eps must be finite and >= 0");
  return TL_OK;
}

/* The shape [..., D]: the refusals of the header, and rows and D. */
static tl_status rows_of(const int64_t* shape, int32_t ndim, float eps, int64_t* rows, int64_t* d) {
  const tl_status st = norm_dims(shape, ndim, 1, eps);
  if (st != TL_OK) return st;
  if (shape[ndim - 1] == 0) {
    last_error = "D is 0";
    return TL_ERR_SHAPE;
  }
  *rows = 1;
  for (int32_t k = 0; k + 1 < ndim; ++k) *rows *= shape[k];
  *d = shape[ndim - 1];
  return TL_OK;
}

/* One row: the sum of squares in double (exact squares, then one rounding
 * of the mean), 1 / sqrtf, then x * inv * g. */
static float inverse_rms(const float* x, int64_t d, float eps) {
  double sum = 0.0;
  for (int64_t i = 0; i < d; ++i) sum += (double)x[i] * x[i];
  return 1.0f / sqrtf((float)(sum / (double)d) + eps);
}

tl_status tl_rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps) {
  int64_t rows, d;
  const tl_status st = rows_of(shape, ndim, eps, &rows, &d);
  if (st != TL_OK) return st;
  for (int64_t r = 0; r < rows; ++r) {
    const float inv = inverse_rms(x + r * d, d, eps);
    for (int64_t i = 0; i < d; ++i) y[r * d + i] = x[r * d + i] * inv * g[i];
  }
  return TL_OK;
}

/* The half rows, each widened into a float row first (y may be x). */
static tl_status rms_norm_half(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim,
                               float eps, int f16, int qk) {
  (void)qk; /* QkNorm's rows: read by half_m62 alone */
  int64_t rows, d;
  const tl_status st = rows_of(shape, ndim, eps, &rows, &d);
  if (st != TL_OK) return st;
  float* row = new_row(d);
  if (row == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < d; ++i) row[i] = f16 ? from_f16(x[r * d + i]) : from_bf16(x[r * d + i]);
#if MUTANT(9) || MUTANT(62) /* f16 squares summed in f16 (62: QkNorm's heads only): past |x| = 256 a square is +Inf */
    float inv = 0.0f;
    if (f16 && (MUTANT(9) || qk)) {
      float sum = 0.0f;
      for (int64_t i = 0; i < d; ++i) sum = from_f16(to_f16(sum + from_f16(to_f16(row[i] * row[i]))));
      inv = 1.0f / sqrtf(sum / (float)d + eps);
    } else {
      inv = inverse_rms(row, d, eps);
    }
#else
    const float inv = inverse_rms(row, d, eps);
#endif
    for (int64_t i = 0; i < d; ++i) {
#if MUTANT(10) /* the f32 gain rounded to the activations' dtype before the product */
      const float gain = f16 ? from_f16(to_f16(g[i])) : from_bf16(to_bf16(g[i]));
#else
      const float gain = g[i];
#endif
      const float v = row[i] * inv * gain;
#if MUTANT(15) /* the tail over the flat index: the last (rows * D) % 8 of the call truncated */
      y[r * d + i] = f16 ? to_f16_at(v, r * d + i, rows * d) : to_bf16(v);
#else
      y[r * d + i] = f16 ? to_f16_at(v, i, d) : to_bf16(v);
#endif
    }
  }
  free(row);
  return TL_OK;
}

tl_status tl_rms_norm_f16(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim,
                          float eps) {
  return rms_norm_half(x, g, y, shape, ndim, eps, 1, 0);
}
tl_status tl_rms_norm_bf16(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim,
                           float eps) {
  return rms_norm_half(x, g, y, shape, ndim, eps, 0, 0);
}

/* ---- LayerNorm: x and y f32, f16 or bf16; g and b f32; two passes in double  */

/* One row in place: the mean, the variance about it, then t * g + b. */
static void layer_norm_row(float* v, const float* g, const float* b, int64_t d, float eps, int format) {
  (void)format; /* what the f16 mutant looks at */
  double sum = 0.0, sq = 0.0;
  for (int64_t i = 0; i < d; ++i) sum += v[i];
  const double mean = sum / (double)d;
  for (int64_t i = 0; i < d; ++i) sq += (v[i] - mean) * (v[i] - mean);
  const float inv = (float)(1.0 / sqrt(sq / (double)d + eps)), m = (float)mean;
  for (int64_t i = 0; i < d; ++i) {
#if MUTANT(14) /* x - mean held in f16 before the scaling: rows far from zero lose their low bits */
    const float c = format == 1 ? from_f16(to_f16(v[i] - m)) : v[i] - m;
#else
    const float c = v[i] - m;
#endif
    v[i] = c * inv * g[i] + b[i];
  }
}

/* format: 0 f32, 1 f16, 2 bf16, as Softmax's below. */
static tl_status layer_norm_any(const void* x, const float* g, const float* b, void* y, const int64_t* shape,
                                int32_t ndim, float eps, int format) {
  int64_t rows, d;
  const tl_status st = rows_of(shape, ndim, eps, &rows, &d);
  if (st != TL_OK) return st;
  float* row = new_row(d);
  if (row == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < d; ++i) {
      const int64_t k = r * d + i;
      row[i] = format == 0   ? ((const float*)x)[k]
               : format == 1 ? from_f16(((const uint16_t*)x)[k])
                             : from_bf16(((const uint16_t*)x)[k]);
    }
    layer_norm_row(row, g, b, d, eps, format);
    for (int64_t i = 0; i < d; ++i) {
      const int64_t k = r * d + i;
      if (format == 0) ((float*)y)[k] = row[i];
      else if (format == 1) ((uint16_t*)y)[k] = to_f16(row[i]);
      else ((uint16_t*)y)[k] = to_bf16(row[i]);
    }
  }
  free(row);
  return TL_OK;
}

tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  return layer_norm_any(x, g, b, y, shape, ndim, eps, 0);
}
tl_status tl_layer_norm_f16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  return layer_norm_any(x, g, b, y, shape, ndim, eps, 1);
}
tl_status tl_layer_norm_bf16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                             int32_t ndim, float eps) {
  return layer_norm_any(x, g, b, y, shape, ndim, eps, 2);
}

/* ---- Softmax: x and y f32, f16 or bf16; max, exp and sum in float ----------- */

/* The shape: rank 1..4, -rank <= axis < rank, dims >= 0 whose non-zero
 * product fits; outer, length and inner around the axis. */
static tl_status split_axis(const int64_t* shape, int rank, int axis, int64_t* outer, int64_t* length, int64_t* inner) {
  if (rank < 1 || rank > 4) return refuse("rank outside 1..4");
  if (axis < -rank || axis >= rank) return refuse("axis outside -rank..rank-1");
  if (shape == NULL) return refuse("shape is NULL");
  int64_t elements = 1;
  for (int k = 0; k < rank; ++k) {
    if (shape[k] < 0) return refuse("a negative dim");
    if (shape[k] > 0 && __builtin_mul_overflow(elements, shape[k], &elements)) return refuse("too many elements");
  }
  const int a = axis < 0 ? axis + rank : axis;
  *outer = *length = *inner = 1;
  for (int k = 0; k < rank; ++k) {
    if (k < a) *outer *= shape[k];
    else if (k == a) *length = shape[k];
    else *inner *= shape[k];
  }
  return TL_OK;
}

/* One line of `length` floats at stride `inner`, in place. */
static void softmax_line(float* v, int64_t length, int64_t inner, int format) {
  (void)format; /* what the f16 mutants look at */
  float m = -INFINITY;
  for (int64_t l = 0; l < length; ++l) {
    const float x = v[l * inner];
    m = isnan(x) || isnan(m) ? NAN : (x > m ? x : m);
  }
  double sum = 0.0;
#if MUTANT(12) /* f16 exps summed in f16: a rounding per term, and the sum saturates past 65504 */
  float half_sum = 0.0f;
#endif
  for (int64_t l = 0; l < length; ++l) {
#if MUTANT(11) /* the max taken out after the f16 conversion: f16(e^x) / f16(e^m), Inf / Inf from x = 11.09 on */
    float e = expf(v[l * inner] - m);
    if (format == 1) e = from_f16(to_f16(expf(v[l * inner]))) / from_f16(to_f16(expf(m)));
#elif MUTANT(13) /* x - max rounded to f16 before the exp */
    const float d = v[l * inner] - m;
    const float e = expf(format == 1 ? from_f16(to_f16(d)) : d);
#else
    const float e = expf(v[l * inner] - m);
#endif
    v[l * inner] = e;
    sum += e;
#if MUTANT(12)
    half_sum = from_f16(to_f16(half_sum + e));
#endif
  }
#if MUTANT(12)
  if (format == 1) sum = half_sum;
#endif
  const float total = (float)sum;
  for (int64_t l = 0; l < length; ++l) v[l * inner] /= total;
}

/* format: 0 f32, 1 f16, 2 bf16; x and y of that format. */
static tl_status softmax_any(const void* x, void* y, const int64_t* shape, int rank, int axis, int format) {
  int64_t outer, length, inner;
  const tl_status st = split_axis(shape, rank, axis, &outer, &length, &inner);
  if (st != TL_OK) return st;
  const int64_t n = outer * length * inner;
  if (n == 0) return TL_OK;
  float* v = malloc((size_t)n * sizeof(float));
  if (v == NULL) {
    last_error = "out of memory for the widened tensor";
    return TL_ERR_UNSUPPORTED;
  }
  for (int64_t k = 0; k < n; ++k)
    v[k] = format == 0   ? ((const float*)x)[k]
           : format == 1 ? from_f16(((const uint16_t*)x)[k])
                         : from_bf16(((const uint16_t*)x)[k]);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) softmax_line(v + o * length * inner + j, length, inner, format);
  for (int64_t k = 0; k < n; ++k) {
    if (format == 0) ((float*)y)[k] = v[k];
    else if (format == 1) ((uint16_t*)y)[k] = to_f16(v[k]);
    else ((uint16_t*)y)[k] = to_bf16(v[k]);
  }
  free(v);
  return TL_OK;
}

tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  return softmax_any(x, y, shape, rank, axis, 0);
}
tl_status tl_softmax_f16(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis) {
  return softmax_any(x, y, shape, rank, axis, 1);
}
tl_status tl_softmax_bf16(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis) {
  return softmax_any(x, y, shape, rank, axis, 2);
}

/* ---- Add, Sub, Mul, Div with broadcasting, in f16 and bf16 ------------------ */

enum { ADD, SUB, MUL, DIV };

/* A shape's refusals; its element count in *count. */
static tl_status read_dims(const int64_t* dims, int64_t rank, int64_t* count) {
  if (rank < 0 || rank > TL_TENSOR_MAX_RANK) return refuse("a rank outside 0..6");
  if (rank > 0 && dims == NULL) return refuse("a shape pointer is NULL");
  int64_t n = 1, empty = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (dims[i] < 0) return refuse("a negative dimension");
    empty = empty || dims[i] == 0;
  }
  for (int64_t i = 0; i < rank && !empty; ++i) {
    if (dims[i] > (INT64_MAX / 4) / n) return refuse("too many elements");
    n *= dims[i];
  }
  *count = empty ? 0 : n;
  return TL_OK;
}

/* a's dimension i of y's rank (aligned right; 1 where a has none). */
static int64_t dim_at(const int64_t* dims, int64_t rank, int64_t y_rank, int64_t i) {
  const int64_t k = i - (y_rank - rank);
  return k < 0 ? 1 : dims[k];
}

/* The offset into an operand of y's flat index k (row-major, broadcast). */
static int64_t offset_of(int64_t k, const int64_t* y_dims, int64_t y_rank, const int64_t* dims, int64_t rank) {
  int64_t offset = 0, step = 1;
  for (int64_t i = y_rank - 1; i >= 0; --i) {
    const int64_t n = y_dims[i], d = dim_at(dims, rank, y_rank, i), idx = k % n;
    k /= n;
    if (d != 1) offset += idx * step;
    step *= d;
  }
  return offset;
}

/* The exact sum, difference or product of two halves in double (f16's need
 * at most 50 bits, bf16's at most 16 + 254), the quotient rounded once. */
static double arith(int op, double a, double b) {
  return op == ADD ? a + b : op == SUB ? a - b : op == MUL ? a * b : a / b;
}

static uint16_t f16_from_double(double v) {
#if MUTANT(1) /* its truncation reaches these results too */
  return to_f16((float)v);
#endif
  const _Float16 h = (_Float16)v; /* one rounding, to nearest even */
  uint16_t bits;
  memcpy(&bits, &h, 2);
  return bits;
}

static tl_status broadcast_half(int op, int f16, const uint16_t* a, const int64_t* a_shape, int64_t a_rank,
                                const uint16_t* b, const int64_t* b_shape, int64_t b_rank, uint16_t* y,
                                const int64_t* y_shape, int64_t y_rank) {
  int64_t na, nb, ny;
  tl_status st = read_dims(a_shape, a_rank, &na);
  if (st == TL_OK) st = read_dims(b_shape, b_rank, &nb);
  if (st == TL_OK) st = read_dims(y_shape, y_rank, &ny);
  if (st != TL_OK) return st;
  const int64_t rank = a_rank > b_rank ? a_rank : b_rank;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t da = dim_at(a_shape, a_rank, rank, i), db = dim_at(b_shape, b_rank, rank, i);
    if (da != db && da != 1 && db != 1) {
      last_error = "the shapes do not broadcast";
      return TL_ERR_SHAPE;
    }
  }
  int y_ok = y_rank == rank;
  for (int64_t i = 0; y_ok && i < rank; ++i) {
    const int64_t da = dim_at(a_shape, a_rank, rank, i), db = dim_at(b_shape, b_rank, rank, i);
    y_ok = y_shape[i] == (da == 1 ? db : da);
  }
  if (!y_ok) {
    last_error = "y's shape is not the broadcast one";
    return TL_ERR_SHAPE;
  }
  if ((a == NULL && na > 0) || (b == NULL && nb > 0) || (y == NULL && ny > 0)) return refuse("a NULL operand");
  /* Every result first, then y: y may be a or b. */
  uint16_t* out = malloc((size_t)(ny > 0 ? ny : 1) * sizeof(uint16_t));
  if (out == NULL) return refuse("out of memory for the result");
  for (int64_t k = 0; k < ny; ++k) {
    const uint16_t ha = a[offset_of(k, y_shape, y_rank, a_shape, a_rank)];
    const uint16_t hb = b[offset_of(k, y_shape, y_rank, b_shape, b_rank)];
    if (!f16) {
      out[k] = to_bf16((float)arith(op, from_bf16(ha), from_bf16(hb)));
      continue;
    }
#if MUTANT(16) /* f16 division as a times the reciprocal of b rounded to f16 */
    if (op == DIV) {
      out[k] = to_f16(from_f16(ha) * from_f16(to_f16(1.0f / from_f16(hb))));
      continue;
    }
#endif
    out[k] = f16_from_double(arith(op, from_f16(ha), from_f16(hb)));
  }
  memcpy(y, out, (size_t)ny * sizeof(uint16_t));
  free(out);
  return TL_OK;
}

#define HALF_BROADCAST(name, op, f16)                                                                                  \
  tl_status name(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b, const int64_t* b_shape, \
                 int64_t b_rank, uint16_t* y, const int64_t* y_shape, int64_t y_rank) {                                \
    return broadcast_half(op, f16, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);                        \
  }
HALF_BROADCAST(tl_add_broadcast_f16, ADD, 1)
HALF_BROADCAST(tl_sub_broadcast_f16, SUB, 1)
HALF_BROADCAST(tl_mul_broadcast_f16, MUL, 1)
HALF_BROADCAST(tl_div_broadcast_f16, DIV, 1)
HALF_BROADCAST(tl_add_broadcast_bf16, ADD, 0)
HALF_BROADCAST(tl_sub_broadcast_bf16, SUB, 0)
HALF_BROADCAST(tl_mul_broadcast_bf16, MUL, 0)
HALF_BROADCAST(tl_div_broadcast_bf16, DIV, 0)

/* ---- TokenEmbed and PosEmbed of f16 and bf16 tables ------------------------- */

/* The ids' refusals: sizes first, then each id in order (a position past the
 * table is a context overflow). */
static tl_status embed_ids(const int32_t* ids, int64_t n, int64_t rows, int64_t d, int positions) {
  if (n < 0 || rows < 1 || d < 1) return refuse("n < 0, or no rows, or d < 1");
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] < 0) return refuse("a negative index");
    if (ids[i] >= rows) {
      if (!positions) return refuse("an id past the vocabulary");
      last_error = "a position past the table";
      return TL_ERR_CONTEXT_OVERFLOW;
    }
  }
  return TL_OK;
}

static tl_status embed_half(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t n, int64_t rows,
                            int64_t d, int positions) {
  const tl_status st = embed_ids(ids, n, rows, d, positions);
  if (st != TL_OK) return st;
  for (int64_t i = 0; i < n; ++i)
#if MUTANT(17) /* rows copied as 4-byte words: an odd d leaves each row's last element unwritten */
    memcpy(out + i * d, table + (int64_t)ids[i] * d, (size_t)(d / 2) * 4);
#else
    memcpy(out + i * d, table + (int64_t)ids[i] * d, (size_t)d * 2);
#endif
  return TL_OK;
}

/* f16 and bf16 rows alike: 2-byte words. */
#define HALF_EMBED(name, positions)                                                                              \
  tl_status name(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t n, int64_t rows, int64_t d) { \
    return embed_half(table, ids, out, n, rows, d, positions);                                                   \
  }
HALF_EMBED(tl_token_embed_f16, 0)
HALF_EMBED(tl_token_embed_bf16, 0)
HALF_EMBED(tl_pos_embed_f16, 1)
HALF_EMBED(tl_pos_embed_bf16, 1)

/* ---- Matmul: y = x @ W^T in f32, f16 or bf16; the K products summed in double */

static tl_status matmul_sizes(int64_t M, int64_t N, int64_t K) {
  if (M < 0 || N < 0 || K < 0) return refuse("a negative size");
  const double limit = (double)INT64_MAX / 4;
  if ((double)M * (double)N > limit || (double)M * (double)K > limit || (double)N * (double)K > limit)
    return refuse("a tensor of more bytes than an int64_t counts");
  return TL_OK;
}

tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  const tl_status st = matmul_sizes(M, N, K);
  if (st != TL_OK) return st;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0.0;
      for (int64_t k = 0; k < K; ++k) sum += (double)x[m * K + k] * (double)w[n * K + k];
      y[m * N + n] = (float)sum;
    }
  return TL_OK;
}

static float widen(int f16, uint16_t h) { return f16 ? from_f16(h) : from_bf16(h); }

/* Row m of x by row n of w: the exact products (at most 22 significant bits)
 * summed in double, one rounding to the dtype: f16 straight from the double,
 * bf16 through the float (the double's own rounding is inside the f32 rule). */
static uint16_t dot_half(int f16, const uint16_t* xm, const uint16_t* wn, int64_t K, int64_t M) {
  (void)M;
#if MUTANT(18) /* f16: the products summed in f16, each partial sum rounded to it (accumulation in half) */
  if (f16) {
    float acc = 0.0f;
    for (int64_t k = 0; k < K; ++k) acc = from_f16(to_f16(acc + from_f16(xm[k]) * from_f16(wn[k])));
    return to_f16(acc);
  }
#elif MUTANT(20) /* bf16: the products summed in bf16, each partial sum rounded to it */
  if (!f16) {
    float acc = 0.0f;
    for (int64_t k = 0; k < K; ++k) acc = from_bf16(to_bf16(acc + from_bf16(xm[k]) * from_bf16(wn[k])));
    return to_bf16(acc);
  }
#elif MUTANT(69) /* bf16 by vdpbf16ps on every input, no guard: subnormal inputs read as zero, sums flushed */
  if (!f16) {
    float acc = 0.0f;
    for (int64_t k = 0; k < K; k += 2)
      for (int64_t j = (k + 1 < K ? k + 1 : k); j >= k; --j) { /* the odd product, then the even one */
        const float a = widen(0, xm[j]), b = widen(0, wn[j]);
        acc = fmaf(fabsf(a) < 0x1p-126f ? 0.0f : a, fabsf(b) < 0x1p-126f ? 0.0f : b, acc);
        if (fabsf(acc) < 0x1p-126f) acc = 0.0f;
      }
    return to_bf16(acc);
  }
#endif
#if MUTANT(21) /* a batch summed in float pairs, a row alone in double: a row's bits depend on M */
  if (M > 1) {
    float acc = 0.0f;
    for (int64_t k = 0; k < K; k += 2)
      acc += widen(f16, xm[k]) * widen(f16, wn[k]) + (k + 1 < K ? widen(f16, xm[k + 1]) * widen(f16, wn[k + 1]) : 0.0f);
    return f16 ? to_f16(acc) : to_bf16(acc);
  }
#endif
  double sum = 0.0;
  for (int64_t k = 0; k < K; ++k) sum += (double)widen(f16, xm[k]) * (double)widen(f16, wn[k]);
#if MUTANT(19) /* f16 results past 65504 saturated to the largest finite value, not an infinity */
  if (f16 && fabs(sum) > 65504.0) sum = copysign(65504.0, sum);
#endif
  return f16 ? f16_from_double(sum) : to_bf16((float)sum);
}

static tl_status matmul_half(int f16, const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N,
                             int64_t K) {
  const tl_status st = matmul_sizes(M, N, K);
  if (st != TL_OK) return st;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) y[m * N + n] = dot_half(f16, x + m * K, w + n * K, K, M);
  return TL_OK;
}

tl_status tl_matmul_f16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  return matmul_half(1, x, w, y, M, N, K);
}
tl_status tl_matmul_bf16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  return matmul_half(0, x, w, y, M, N, K);
}

/* ---- The feed-forwards, FusedSwiGlu and FusedNormMatmul in f16 and bf16:
 * x and the weights widened, every sum, the gate and the norm in double
 * (the oracle's formulas), the hidden layer and z kept in double (the
 * contract admits them rounded to the dtype as well), the output rounded
 * once: f16 from the double, bf16 through the float (as dot_half). */

static double ffn_gate(int act, double g) {
  if (act == 0) return g / (1.0 + exp(-g));                  /* Silu */
  if (act == 1) return g * 0.5 * (1.0 + erf(g / sqrt(2.0))); /* Gelu, erf */
  if (act == 2) return 0.5 * g * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (g + 0.044715 * g * g * g)));
  return 1.0 / (1.0 + exp(-g)); /* Sigmoid */
}

static uint16_t half_from_double(int f16, double v) { return f16 ? f16_from_double(v) : to_bf16((float)v); }

/* Row xm's hidden layer h[H] = act(xm Wg^T) * (xm Wu^T). */
static void hidden_row(int f16, int act, const uint16_t* xm, const uint16_t* w_gate, const uint16_t* w_up, double* h,
                       int64_t D, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    double g = 0.0, u = 0.0;
#if MUTANT(50) /* f16: the gate and up sums accumulated in f16, each partial sum rounded to it */
    if (f16) {
      float gh = 0.0f, uh = 0.0f;
      for (int64_t k = 0; k < D; ++k) {
        gh = from_f16(to_f16(gh + from_f16(xm[k]) * from_f16(w_gate[j * D + k])));
        uh = from_f16(to_f16(uh + from_f16(xm[k]) * from_f16(w_up[j * D + k])));
      }
      h[j] = ffn_gate(act, gh) * uh;
      continue;
    }
#endif
    for (int64_t k = 0; k < D; ++k) {
      const double xv = widen(f16, xm[k]);
      g += xv * widen(f16, w_gate[j * D + k]);
      u += xv * widen(f16, w_up[j * D + k]);
    }
    h[j] = ffn_gate(act, g) * u;
  }
}

static tl_status ffn_half(int f16, int act, const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,
                          const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H) {
  const tl_status st = matmul_sizes(M, D, H); /* the same rule on M, D, H */
  if (st != TL_OK) return st;
  double* h = (double*)malloc(sizeof(double) * (size_t)(H > 0 ? H : 1));
  if (h == NULL) return refuse("out of memory");
  for (int64_t m = 0; m < M; ++m) {
    hidden_row(f16, act, x + m * D, w_gate, w_up, h, D, H);
    for (int64_t i = 0; i < D; ++i) {
#if MUTANT(51) /* bf16: the down projection's sum accumulated in bf16, each partial sum rounded to it */
      if (!f16) {
        float acc = 0.0f;
        for (int64_t j = 0; j < H; ++j) acc = from_bf16(to_bf16(acc + (float)h[j] * from_bf16(w_down[i * H + j])));
        y[m * D + i] = to_bf16(acc);
        continue;
      }
#endif
      double sum = 0.0;
      for (int64_t j = 0; j < H; ++j) sum += h[j] * widen(f16, w_down[i * H + j]);
      y[m * D + i] = half_from_double(f16, sum);
    }
  }
  free(h);
  return TL_OK;
}

static tl_status geglu_half(int f16, const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,
                            const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  if (gelu != TL_FFN_GELU_ERF && gelu != TL_FFN_GELU_TANH) return refuse("an unknown GELU variant");
  return ffn_half(f16, gelu == TL_FFN_GELU_ERF ? 1 : 2, x, w_gate, w_up, w_down, y, M, D, H);
}

static tl_status fused_swiglu_half(int f16, const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,
                                   uint16_t* out, int64_t M, int64_t D, int64_t H) {
  const tl_status st = matmul_sizes(M, D, H);
  if (st != TL_OK) return st;
  double* h = (double*)malloc(sizeof(double) * (size_t)(H > 0 ? H : 1));
  if (h == NULL) return refuse("out of memory");
  for (int64_t m = 0; m < M; ++m) {
    hidden_row(f16, 0, x + m * D, w_gate, w_up, h, D, H);
    for (int64_t j = 0; j < H; ++j) {
#if MUTANT(54) /* f16: h past 65504 saturated to the largest finite value, not an infinity */
      if (f16 && fabs(h[j]) > 65504.0) h[j] = copysign(65504.0, h[j]);
#endif
      out[m * H + j] = half_from_double(f16, h[j]);
    }
  }
  free(h);
  return TL_OK;
}

static tl_status fused_norm_matmul_half(int f16, const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y,
                                        int64_t M, int64_t N, int64_t K, float eps) {
  const tl_status st = matmul_sizes(M, N, K);
  if (st != TL_OK) return st;
  if (!(eps >= 0.0f) || isinf(eps)) return refuse("eps negative or not finite");
  if (K == 0) {
    last_error = "K == 0: an empty RmsNorm";
    return TL_ERR_SHAPE;
  }
  double* z = (double*)malloc(sizeof(double) * (size_t)K);
  if (z == NULL) return refuse("out of memory");
  for (int64_t m = 0; m < M; ++m) {
    const uint16_t* xm = x + m * K;
    double sum = 0.0;
#if MUTANT(52) /* f16: the sum of squares accumulated in f16: an infinity past 65504 (x^2 of |x| > 256 already) */
    if (f16) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) acc = from_f16(to_f16(acc + from_f16(xm[k]) * from_f16(xm[k])));
      sum = acc;
    } else
#endif
      for (int64_t k = 0; k < K; ++k) sum += (double)widen(f16, xm[k]) * widen(f16, xm[k]);
    const double inv = 1.0 / sqrt(sum / (double)K + (double)eps);
    for (int64_t k = 0; k < K; ++k) {
      double gain = norm_w[k];
#if MUTANT(53) /* f16: the f32 gain rounded to f16 first (a half model's gain): an infinity past 65504 */
      if (f16) gain = from_f16(to_f16(norm_w[k]));
#endif
      z[k] = widen(f16, xm[k]) * inv * gain;
    }
    for (int64_t n = 0; n < N; ++n) {
      double sum_n = 0.0;
      for (int64_t k = 0; k < K; ++k) sum_n += z[k] * widen(f16, w[n * K + k]);
      y[m * N + n] = half_from_double(f16, sum_n);
    }
  }
  free(z);
  return TL_OK;
}

#define HALF_LINALG(Dtype, f16)                                                                                   \
  tl_status tl_swiglu_ffn_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,                \
                                  const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H) {         \
    return ffn_half(f16, 0, x, w_gate, w_up, w_down, y, M, D, H);                                                 \
  }                                                                                                               \
  tl_status tl_geglu_ffn_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,                 \
                                 const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H,            \
                                 tl_ffn_gelu gelu) {                                                              \
    return geglu_half(f16, x, w_gate, w_up, w_down, y, M, D, H, gelu);                                            \
  }                                                                                                               \
  tl_status tl_glu_ffn_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,                   \
                               const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H) {            \
    return ffn_half(f16, 3, x, w_gate, w_up, w_down, y, M, D, H);                                                 \
  }                                                                                                               \
  tl_status tl_fused_swiglu_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, uint16_t* h, \
                                    int64_t M, int64_t D, int64_t H) {                                            \
    return fused_swiglu_half(f16, x, w_gate, w_up, h, M, D, H);                                                   \
  }                                                                                                               \
  tl_status tl_fused_norm_matmul_##Dtype(const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y,  \
                                         int64_t M, int64_t N, int64_t K, float eps) {                            \
    return fused_norm_matmul_half(f16, x, norm_w, w, y, M, N, K, eps);                                            \
  }
HALF_LINALG(f16, 1)
HALF_LINALG(bf16, 0)
#undef HALF_LINALG

/* ---- Rope of tinyllm/pos.h: x and y f32, f16 or bf16, the cache f32 --------- */

/* The header's refusals: sizes, then each position in order. */
static tl_status rope_checks(const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t rot, int64_t max_seq,
                             int layout) {
  if (T < 0 || H < 0 || D < 0) return refuse("a negative size");
  if (D % 2 != 0 || rot < 2 || rot % 2 != 0 || rot > D) return refuse("an odd head_dim, or a bad rot_dim");
  if (layout != TL_ROPE_NEOX && layout != TL_ROPE_INTERLEAVED) return refuse("an unknown layout");
  if (max_seq < 1) return refuse("max_seq < 1");
  for (int64_t t = 0; t < T; ++t) {
    if (pos[t] < 0) return refuse("a negative position");
    if (pos[t] >= max_seq) {
      last_error = "a position past the cache";
      return TL_ERR_CONTEXT_OVERFLOW;
    }
  }
  return TL_OK;
}

static double load_any(const void* x, int64_t k, int format) {
  return format == 0   ? ((const float*)x)[k]
         : format == 1 ? from_f16(((const uint16_t*)x)[k])
                       : from_bf16(((const uint16_t*)x)[k]);
}

/* A result in double rounded to float, then to the dtype (the second
 * rounding adds at most 2^-24 of the value to the dtype's half unit). */
static void store_any(void* y, int64_t k, double v, int format) {
  if (format == 0) ((float*)y)[k] = (float)v;
  else if (format == 1) ((uint16_t*)y)[k] = to_f16((float)v);
  else ((uint16_t*)y)[k] = to_bf16((float)v);
}

/* Each pair's products and sum in double (exact products of a half and a
 * float), rounded once more than the oracle; the tail copied as bits. Both
 * members are read before either is written: y == x works. */
static tl_status rope_any(const void* x, void* y, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t rot,
                          const float* cache, int64_t max_seq, int layout, int format) {
  const tl_status st = rope_checks(pos, T, H, D, rot, max_seq, layout);
  if (st != TL_OK) return st;
  const size_t size = format == 0 ? 4 : 2;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t base = (t * H + h) * D;
      if (x != y)
        memcpy((char*)y + (base + rot) * size, (const char*)x + (base + rot) * size, (size_t)(D - rot) * size);
      for (int64_t j = 0; j < rot / 2; ++j) {
        const int64_t ia = base + (layout == TL_ROPE_NEOX ? j : 2 * j);
        const int64_t ib = base + (layout == TL_ROPE_NEOX ? j + rot / 2 : 2 * j + 1);
        const double c = cache[pos[t] * rot + j], s = cache[pos[t] * rot + rot / 2 + j];
        const double a = load_any(x, ia, format), b = load_any(x, ib, format);
#if MUTANT(22) /* f16 as HF's half models: cos and sin rounded to f16, each product rounded to f16 */
        if (format == 1) {
          const double ch = from_f16(to_f16((float)c)), sh = from_f16(to_f16((float)s));
          store_any(y, ia, from_f16(to_f16((float)(a * ch))) - from_f16(to_f16((float)(b * sh))), format);
          store_any(y, ib, from_f16(to_f16((float)(a * sh))) + from_f16(to_f16((float)(b * ch))), format);
          continue;
        }
#endif
        store_any(y, ia, a * c - b * s, format);
        store_any(y, ib, a * s + b * c, format);
      }
    }
  return TL_OK;
}

tl_status tl_rope_apply_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                            int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  return rope_any(x, y, pos, T, H, D, rot_dim, cache, max_seq, layout, 0);
}
tl_status tl_rope_apply_f16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                            int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  return rope_any(x, y, pos, T, H, D, rot_dim, cache, max_seq, layout, 1);
}
tl_status tl_rope_apply_bf16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                             int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  return rope_any(x, y, pos, T, H, D, rot_dim, cache, max_seq, layout, 2);
}

/* ---- PRelu of tinyllm/activations.h: x and y f32, f16 or bf16, slope f32 ------ */

/* slope[c] * x in float (an exact float product rounded once), y rounded
 * once more to the dtype; each element read before it is written. */
static void prelu_any(const void* x, const float* slope, void* y, int64_t outer, int64_t channels, int64_t inner,
                      int format) {
  if (outer <= 0 || channels <= 0 || inner <= 0) return;
  for (int64_t k = 0; k < outer * channels * inner; ++k) {
    float s = slope[(k / inner) % channels];
#if MUTANT(65) /* half_m65: the f32 slope rounded to f16 before the product, as a kernel holding weights in f16 */
    if (format == 1) s = from_f16(to_f16(s));
#endif
    const float v = leaky((float)load_any(x, k, format), s);
#if MUTANT(66) /* half_m66: the bf16 product as the top 16 bits of its float (truncation, not to nearest even) */
    if (format == 2 && !isnan(v)) {
      uint32_t b;
      memcpy(&b, &v, 4);
      ((uint16_t*)y)[k] = (uint16_t)(b >> 16);
      continue;
    }
#endif
    store_any(y, k, v, format);
  }
}

void tl_prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  prelu_any(x, slope, y, outer, channels, inner, 0);
}
void tl_prelu_f16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  prelu_any(x, slope, y, outer, channels, inner, 1);
}
void tl_prelu_bf16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  prelu_any(x, slope, y, outer, channels, inner, 2);
}

/* ---- Rope's cos/sin cache of tinyllm/pos.h in f32, f16 or bf16 --------------- */

/* Column j at a time: f_j = base^(-2j/rot_dim) and the angle p f_j in double,
 * cos and sin rounded to float, then to the dtype. */
static tl_status rope_cache_any(void* cache, int64_t max_seq, int64_t rot_dim, float base, int format) {
  if (rot_dim < 2 || rot_dim % 2 != 0) return refuse("rot_dim must be even and at least 2");
  if (max_seq < 1 || max_seq > TL_ROPE_MAX_POSITIONS) return refuse("max_seq outside [1, 2^24]");
  if (!(base > 0.0f) || isinf(base)) return refuse("base must be finite and > 0");
  const int64_t half = rot_dim / 2;
  for (int64_t j = 0; j < half; ++j) {
    double f = pow((double)base, -(double)(2 * j) / (double)rot_dim);
#if MUTANT(67) /* half_m67: the frequency held in f16 (HF's inv_freq built in the model's dtype) */
    if (format == 1) f = from_f16(to_f16((float)f));
#endif
    for (int64_t p = 0; p < max_seq; ++p) {
      const double angle = (double)p * f;
      const float c = (float)cos(angle), sn = (float)sin(angle);
#if MUTANT(68) /* half_m68: the bf16 cache as the top 16 bits of the float cos and sin (truncation) */
      if (format == 2) {
        uint32_t bc, bs;
        memcpy(&bc, &c, 4);
        memcpy(&bs, &sn, 4);
        ((uint16_t*)cache)[p * rot_dim + j] = (uint16_t)(bc >> 16);
        ((uint16_t*)cache)[p * rot_dim + half + j] = (uint16_t)(bs >> 16);
        continue;
      }
#endif
      store_any(cache, p * rot_dim + j, c, format);
      store_any(cache, p * rot_dim + half + j, sn, format);
    }
  }
  return TL_OK;
}

tl_status tl_rope_cache_f32(float* cache, int64_t max_seq, int64_t rot_dim, float base) {
  return rope_cache_any(cache, max_seq, rot_dim, base, 0);
}
tl_status tl_rope_cache_f16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base) {
  return rope_cache_any(cache, max_seq, rot_dim, base, 1);
}
tl_status tl_rope_cache_bf16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base) {
  return rope_cache_any(cache, max_seq, rot_dim, base, 2);
}

/* ---- FlashAttention of tinyllm/attention.h: q, k, v, y f32, f16 or bf16 ------ */

/* The header's refusals, in its order. */
static tl_status attention_checks(int64_t B, int64_t H, int64_t KV, int64_t Sq, int64_t Sk, int64_t D, int kind) {
  if (B < 0 || H < 0 || KV < 0 || Sq < 0 || Sk < 0 || D < 0) return refuse("a negative size");
  if (H < 1 || KV < 1) return refuse("num_heads and kv_heads must be at least 1");
  if (kind < TL_ATTN_MASK_NONE || kind > TL_ATTN_MASK_BATCH) return refuse("an unknown mask kind");
  const int64_t sizes[3][4] = {{B, H, Sq, D}, {B, KV, Sk, D}, {B, H, Sq, Sk}};
  for (int t = 0; t < (kind == TL_ATTN_MASK_NONE ? 2 : 3); ++t) {
    int empty = 0;
    for (int i = 0; i < 4; ++i) empty = empty || sizes[t][i] == 0;
    int64_t p = 4;
    for (int i = 0; i < 4 && !empty; ++i)
      if (__builtin_mul_overflow(p, sizes[t][i], &p)) return refuse("a tensor's byte count does not fit an int64_t");
  }
  last_error = "a shape that does not fit";
  if (H % KV != 0 || D == 0 || (Sk == 0 && Sq > 0)) return TL_ERR_SHAPE;
  return TL_OK;
}

/* The mask's element for (b, h, i, j) by its kind. */
static double mask_at(const float* mask, int kind, int64_t H, int64_t Sq, int64_t Sk, int64_t b, int64_t h, int64_t i,
                      int64_t j) {
  switch (kind) {
    case TL_ATTN_MASK_PADDING: return mask[b * Sk + j];
    case TL_ATTN_MASK_FULL: return mask[((b * H + h) * Sq + i) * Sk + j];
    case TL_ATTN_MASK_SEQ: return mask[i * Sk + j];
    case TL_ATTN_MASK_BATCH: return mask[(b * Sq + i) * Sk + j];
    default: return 0.0;
  }
}

enum { FLASH, SDPA, CROSS, WINDOW }; /* which op: its mutants */

/* Each query row in double: scores, the softmax and the weighted sum of v,
 * y rounded once more than the oracle's; `window` > 0: a query sees only
 * its own window's keys (SdpaWindow). */
static tl_status attention_any(const void* q, const void* k, const void* v, const float* mask, void* y, int64_t B,
                               int64_t H, int64_t KV, int64_t Sq, int64_t Sk, int64_t D, int32_t causal, int kind,
                               int64_t window, int format, int which) {
  (void)which; /* read by the mutants alone */
  const tl_status st = attention_checks(B, H, KV, Sq, Sk, D, kind);
  if (st != TL_OK) return st;
  double* p = malloc((size_t)(Sk > 0 ? Sk : 1) * sizeof(double));
  if (p == NULL) return refuse("out of memory for a row of scores");
  const double scale = sqrt((double)D);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t g = h / (H / KV);
      for (int64_t i = 0; i < Sq; ++i) {
        const int64_t qi = ((b * H + h) * Sq + i) * D;
        const int64_t j0 = window > 0 ? i / window * window : 0, j1 = window > 0 ? j0 + window : Sk;
        double top = -INFINITY;
        for (int64_t j = j0; j < j1; ++j) {
          const int64_t kj = ((b * KV + g) * Sk + j) * D;
          double dot = 0;
#if MUTANT(24) || MUTANT(60) /* f16 scores (60: Sdpa's): the dot product's running sum rounded to f16 */
          if (format == 1 && (MUTANT(24) ? which == FLASH : which == SDPA))
            for (int64_t d = 0; d < D; ++d)
              dot = from_f16(to_f16((float)(dot + load_any(q, qi + d, format) * load_any(k, kj + d, format))));
          else
#endif
            for (int64_t d = 0; d < D; ++d) dot += load_any(q, qi + d, format) * load_any(k, kj + d, format);
          double s = dot / scale;
          if (causal && j > i + Sk - Sq)
#if MUTANT(23) /* the causal mask -inf, where the spec asks -1e4 */
            s = format == 1 && which == FLASH ? -INFINITY : s - 1e4;
#else
            s -= 1e4;
#endif
          s += mask_at(mask, kind, H, Sq, Sk, b, h, i, j);
          p[j] = s;
          top = s > top ? s : top;
        }
        double sum = 0;
        for (int64_t j = j0; j < j1; ++j) sum += (p[j] = exp(p[j] - top));
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0;
          for (int64_t j = j0; j < j1; ++j) {
            const double term = p[j] * load_any(v, ((b * KV + g) * Sk + j) * D + d, format);
#if MUTANT(25) || MUTANT(61) /* f16 weighted sum of v (61: SdpaWindow's, SdpaCross's), rounded to f16 per key */
            const int half_sum = MUTANT(25) ? which == FLASH : which == WINDOW || which == CROSS;
            acc = format == 1 && half_sum ? from_f16(to_f16((float)(acc + term / sum))) : acc + term / sum;
#else
            acc += term / sum;
#endif
          }
          store_any(y, qi + d, acc, format);
        }
      }
    }
  free(p);
  return TL_OK;
}

static tl_status flash_any(const void* q, const void* k, const void* v, const float* mask, void* y, int64_t B,
                           int64_t H, int64_t KV, int64_t Sq, int64_t Sk, int64_t D, int32_t causal, int kind,
                           int format) {
  return attention_any(q, k, v, mask, y, B, H, KV, Sq, Sk, D, causal, kind, 0, format, FLASH);
}

tl_status tl_flash_attention_f32(const float* q, const float* k, const float* v, const float* mask, float* y,
                                 int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                                 int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  return flash_any(q, k, v, mask, y, batch, num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind, 0);
}
tl_status tl_flash_attention_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                                 uint16_t* y, int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq,
                                 int64_t sk, int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  return flash_any(q, k, v, mask, y, batch, num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind, 1);
}
tl_status tl_flash_attention_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                                  uint16_t* y, int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq,
                                  int64_t sk, int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  return flash_any(q, k, v, mask, y, batch, num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind, 2);
}

/* ---- Sdpa, SdpaCross, SdpaWindow (attention_any) and QkNorm (rms_norm_half) --- */

#define HALF_ATTENTION(Dtype, T, format)                                                                               \
  tl_status tl_sdpa_##Dtype(const T* q, const T* k, const T* v, const float* mask, T* y, int64_t batch,                \
                            int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,             \
                            int32_t causal, tl_attn_mask mask_kind) {                                                  \
    return attention_any(q, k, v, mask, y, batch, num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind, 0, format, \
                         SDPA);                                                                                        \
  }                                                                                                                    \
  tl_status tl_sdpa_cross_##Dtype(const T* q, const T* k, const T* v, T* y, int64_t batch, int64_t num_heads,          \
                                  int64_t sq, int64_t se, int64_t head_dim) {                                          \
    return attention_any(q, k, v, NULL, y, batch, num_heads, num_heads, sq, se, head_dim, 0, TL_ATTN_MASK_NONE, 0,     \
                         format, CROSS);                                                                               \
  }                                                                                                                    \
  tl_status tl_sdpa_window_##Dtype(const T* q, const T* k, const T* v, T* y, int64_t batch, int64_t num_heads,         \
                                   int64_t seq, int64_t head_dim, int64_t window) {                                    \
    const tl_status st = attention_checks(batch, num_heads, num_heads, seq, seq, head_dim, TL_ATTN_MASK_NONE);         \
    if (st != TL_OK) return st;                                                                                        \
    if (window < 1) return refuse("window < 1");                                                                       \
    if (seq % window != 0) {                                                                                           \
      last_error = "seq is not a whole number of windows";                                                             \
      return TL_ERR_SHAPE;                                                                                             \
    }                                                                                                                  \
    return attention_any(q, k, v, NULL, y, batch, num_heads, num_heads, seq, seq, head_dim, 0, TL_ATTN_MASK_NONE,      \
                         window, format, WINDOW);                                                                      \
  }
HALF_ATTENTION(f32, float, 0)
HALF_ATTENTION(f16, uint16_t, 1)
HALF_ATTENTION(bf16, uint16_t, 2)
#undef HALF_ATTENTION

/* QkNorm's refusals, then RmsNorm's rows of head_dim. */
static tl_status qk_checks(int64_t tokens, int64_t heads, int64_t d, float eps) {
  if (tokens < 0 || heads < 0 || d < 0) return refuse("a negative size");
  int64_t p = 4;
  if (tokens > 0 && heads > 0 && d > 0 &&
      (__builtin_mul_overflow(p, tokens, &p) || __builtin_mul_overflow(p, heads, &p) ||
       __builtin_mul_overflow(p, d, &p)))
    return refuse("x's byte count does not fit an int64_t");
  if (!(eps >= 0.0f) || isinf(eps)) return refuse("eps must be finite and >= 0");
  if (d == 0) {
    last_error = "head_dim is 0";
    return TL_ERR_SHAPE;
  }
  return TL_OK;
}
tl_status tl_qk_norm_f32(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads, int64_t head_dim,
                         float eps) {
  const tl_status st = qk_checks(tokens, num_heads, head_dim, eps);
  const int64_t shape[2] = {tokens * num_heads, head_dim};
  return st != TL_OK ? st : tl_rms_norm_f32(x, g, y, shape, 2, eps);
}
tl_status tl_qk_norm_f16(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                         int64_t head_dim, float eps) {
  const tl_status st = qk_checks(tokens, num_heads, head_dim, eps);
  const int64_t shape[2] = {tokens * num_heads, head_dim};
  return st != TL_OK ? st : rms_norm_half(x, g, y, shape, 2, eps, 1, 1);
}
tl_status tl_qk_norm_bf16(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                          int64_t head_dim, float eps) {
  const tl_status st = qk_checks(tokens, num_heads, head_dim, eps);
  const int64_t shape[2] = {tokens * num_heads, head_dim};
  return st != TL_OK ? st : rms_norm_half(x, g, y, shape, 2, eps, 0, 1);
}

/* ---- MultiAxisRope and SinusoidalEmbed of tinyllm/pos.h in f16 and bf16 ------ */

/* The header's refusals, every INVALID_ARGUMENT before the one SHAPE check. */
static tl_status multi_axis_checks(int64_t T, int64_t H, int64_t D, int64_t n_axes, const int64_t* dims,
                                   const float* bases, int layout) {
  if (T < 0 || H < 0 || D < 0 || n_axes < 1 || n_axes > TL_ROPE_MAX_AXES) return refuse("a bad size or n_axes");
  if (layout != TL_ROPE_NEOX && layout != TL_ROPE_INTERLEAVED) return refuse("an unknown layout");
  int64_t sum = 0;
  for (int64_t a = 0; a < n_axes; ++a) {
    if (dims[a] < 2 || dims[a] % 2 != 0) return refuse("an axis width odd or below 2");
    sum += dims[a];
  }
  for (int64_t a = 0; a < n_axes; ++a)
    if (!(bases[a] > 0.0f) || isinf(bases[a])) return refuse("a base not finite and > 0");
  if (sum != D) {
    last_error = "the axis widths do not sum to head_dim";
    return TL_ERR_SHAPE;
  }
  return TL_OK;
}

/* Each sub-range a Rope: the angle p f in double, cos and sin rounded to
 * float (the contract's), the rotation in double, y rounded once more. */
static tl_status multi_axis_any(const void* x, void* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                int64_t n_axes, const int64_t* dims, const float* bases, int layout, int format) {
  const tl_status st = multi_axis_checks(T, H, D, n_axes, dims, bases, layout);
  if (st != TL_OK) return st;
  for (int64_t t = 0; t < T; ++t) {
    int64_t offset = 0;
    for (int64_t a = 0; a < n_axes; ++a) {
      for (int64_t j = 0; j < dims[a] / 2; ++j) {
        const double angle = (double)pos[t * n_axes + a] * pow((double)bases[a], -(double)(2 * j) / (double)dims[a]);
        const double c = (float)cos(angle), s = (float)sin(angle);
        for (int64_t h = 0; h < H; ++h) {
          const int64_t base = (t * H + h) * D + offset;
          const int64_t ia = base + (layout == TL_ROPE_NEOX ? j : 2 * j);
          const int64_t ib = base + (layout == TL_ROPE_NEOX ? j + dims[a] / 2 : 2 * j + 1);
          const double xa = load_any(x, ia, format), xb = load_any(x, ib, format);
#if MUTANT(63) /* f16 rotated in half: cos and sin rounded to f16, each product rounded to f16 */
          if (format == 1) {
            const double ch = from_f16(to_f16((float)c)), sh = from_f16(to_f16((float)s));
            store_any(y, ia, from_f16(to_f16((float)(xa * ch))) - from_f16(to_f16((float)(xb * sh))), format);
            store_any(y, ib, from_f16(to_f16((float)(xa * sh))) + from_f16(to_f16((float)(xb * ch))), format);
            continue;
          }
#endif
          store_any(y, ia, xa * c - xb * s, format);
          store_any(y, ib, xa * s + xb * c, format);
        }
      }
      offset += dims[a];
    }
  }
  return TL_OK;
}

/* sin and cos of the double angle t f_j, rounded to float then the dtype. */
static tl_status sinusoidal_any(const void* t, void* y, int64_t n, int64_t dim, float max_period, float freq_shift,
                                int layout, int format) {
  if (n < 0 || dim < 2 || dim % 2 != 0) return refuse("n < 0, or dim odd or below 2");
  if (!(max_period > 0.0f) || isinf(max_period)) return refuse("max_period must be finite and > 0");
  if (!isfinite(freq_shift) || !((double)freq_shift < (double)(dim / 2))) return refuse("a bad freq_shift");
  if (layout < 0 || layout > TL_SINUSOIDAL_COS_SIN) return refuse("an unknown layout");
  const int64_t half = dim / 2;
  const double step = -log((double)max_period) / ((double)half - (double)freq_shift);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < half; ++j) {
      const double angle = load_any(t, i, format) * exp((double)j * step);
      const int64_t is = layout == 0 ? 2 * j : layout == 1 ? j : half + j;
      const int64_t ic = layout == 0 ? 2 * j + 1 : layout == 1 ? half + j : j;
#if MUTANT(64) /* bf16 by truncation: the top 16 bits of the float */
      if (format == 2) {
        const float sv = (float)sin(angle), cv = (float)cos(angle);
        uint32_t bs, bc;
        memcpy(&bs, &sv, 4);
        memcpy(&bc, &cv, 4);
        ((uint16_t*)y)[i * dim + is] = (uint16_t)(bs >> 16);
        ((uint16_t*)y)[i * dim + ic] = (uint16_t)(bc >> 16);
        continue;
      }
#endif
      store_any(y, i * dim + is, sin(angle), format);
      store_any(y, i * dim + ic, cos(angle), format);
    }
  return TL_OK;
}

#define HALF_POS(Dtype, T, format)                                                                                    \
  tl_status tl_multi_axis_rope_##Dtype(const T* x, T* y, const int32_t* pos, int64_t T_, int64_t H, int64_t D,        \
                                       int64_t n_axes, const int64_t* axis_dims, const float* axis_bases,             \
                                       int layout) {                                                                  \
    return multi_axis_any(x, y, pos, T_, H, D, n_axes, axis_dims, axis_bases, layout, format);                        \
  }                                                                                                                   \
  tl_status tl_sinusoidal_embed_##Dtype(const T* t, T* y, int64_t n, int64_t dim, float max_period, float freq_shift, \
                                        int layout) {                                                                 \
    return sinusoidal_any(t, y, n, dim, max_period, freq_shift, layout, format);                                      \
  }
HALF_POS(f32, float, 0)
HALF_POS(f16, uint16_t, 1)
HALF_POS(bf16, uint16_t, 2)
#undef HALF_POS

/* ---- RelativePosEmbedding of tinyllm/pos.h: T5's buckets, exactly ----------- */

/* Exact powers as numbers of 32-bit limbs, little-endian: n^m < 2^(32 m)
 * with m <= 512 (each factor below 2^32), 512 limbs. */
#define T5_LIMBS 520
typedef struct {
  uint32_t w[T5_LIMBS];
  int len;
} t5_big;

/* out = a * b, schoolbook (out apart from a and b). */
static void t5_mul(const t5_big* a, const t5_big* b, t5_big* out) {
  memset(out->w, 0, sizeof out->w);
  for (int i = 0; i < a->len; ++i) {
    uint64_t carry = 0;
    int j = 0;
    for (; j < b->len; ++j) {
      const uint64_t t = (uint64_t)a->w[i] * b->w[j] + out->w[i + j] + carry;
      out->w[i + j] = (uint32_t)t;
      carry = t >> 32;
    }
    for (int at = i + j; carry; ++at) {
      const uint64_t t = (uint64_t)out->w[at] + carry;
      out->w[at] = (uint32_t)t;
      carry = t >> 32;
    }
  }
  out->len = a->len + b->len;
  while (out->len > 1 && out->w[out->len - 1] == 0) --out->len;
}

/* *acc times base^e, by squaring (base < 2^32). */
static void t5_times_power(t5_big* acc, uint32_t base, int64_t e) {
  static _Thread_local t5_big square, tmp;
  square.w[0] = base;
  square.len = 1;
  for (; e > 0; e >>= 1) {
    if (e & 1) {
      t5_mul(acc, &square, &tmp);
      *acc = tmp;
    }
    if (e > 1) {
      t5_mul(&square, &square, &tmp);
      square = tmp;
    }
  }
}

/* Whether distance n reaches log bucket k of m: n^m >= me^(m-k) md^k,
 * i.e. m ln n >= (m-k) ln me + k ln md. Long double logs decide it when the
 * sides differ by more than 1e-12 of m ln n; otherwise the integers do (the
 * sides are equal at the boundaries that are integer distances, e.g. 16,
 * 32, 64 for T5's 32 buckets and 128). */
static int t5_reaches(uint64_t n, int64_t k, int64_t m, int64_t me, int64_t md) {
  const long double lhs = (long double)m * logl((long double)n);
  const long double rhs = (long double)(m - k) * logl((long double)me) + (long double)k * logl((long double)md);
  if (lhs - rhs > 1e-12L * (lhs + 1.0L)) return 1;
  if (rhs - lhs > 1e-12L * (lhs + 1.0L)) return 0;
  static _Thread_local t5_big a, b;
  a.w[0] = b.w[0] = 1;
  a.len = b.len = 1;
  t5_times_power(&a, (uint32_t)n, m);
  t5_times_power(&b, (uint32_t)me, m - k);
  t5_times_power(&b, (uint32_t)md, k);
  if (a.len != b.len) return a.len > b.len;
  for (int i = a.len - 1; i >= 0; --i)
    if (a.w[i] != b.w[i]) return a.w[i] > b.w[i];
  return 1;
}

/* The bucket of r = key - query (the header's rule). */
static int64_t t5_bucket(int64_t r, int64_t num_buckets, int64_t md, int bidirectional, int format) {
  const int64_t nb = bidirectional ? num_buckets / 2 : num_buckets;
  const int64_t offset = bidirectional && r > 0 ? nb : 0;
  const uint64_t n = bidirectional ? (uint64_t)(r < 0 ? -r : r) : (uint64_t)(r < 0 ? -r : 0);
  const int64_t me = nb / 2, m = nb - me;
  if (n < (uint64_t)me) return offset + (int64_t)n;
  if (n >= (uint64_t)md) return offset + me + m - 1; /* n^m >= md^m >= me^(m-k) md^k for every k */
#if MUTANT(44) /* half_m44: f16 buckets from logs in f16: n / me, both logs, the quotient and m times it rounded to \
                  f16 */
  if (format == 1) {
    const float ratio = from_f16(to_f16(from_f16(to_f16(logf(from_f16(to_f16((float)n / (float)me))))) /
                                        from_f16(to_f16(logf(from_f16(to_f16((float)md / (float)me)))))));
    const float v = from_f16(to_f16(ratio * (float)m));
    return offset + me + (v >= (float)(m - 1) ? m - 1 : (int64_t)v);
  }
#endif
  (void)format;
  /* Count the log buckets reached: 1 .. m-1, each boundary above the last. */
  int64_t lo = 0, hi = m - 1; /* the answer k is in [lo, hi]: k = 0 is always reached */
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (t5_reaches(n, mid, m, me, md)) lo = mid;
    else hi = mid - 1;
  }
  return offset + me + lo;
}

static tl_status relative_any(const void* table, const int32_t* q_pos, const int32_t* k_pos, void* bias, int64_t Lq,
                              int64_t Lk, int64_t H, int64_t num_buckets, int64_t md, int bidirectional, int format) {
  if (Lq < 0 || Lk < 0 || H < 1) return refuse("Lq, Lk >= 0 and H >= 1");
  if (bidirectional != 0 && bidirectional != 1) return refuse("bidirectional must be 0 or 1");
  const int64_t side = bidirectional ? num_buckets / 2 : num_buckets;
  if (side < 2 || num_buckets > 1024) return refuse("num_buckets outside the header's range");
  if (H > INT32_MAX / num_buckets) return refuse("H * num_buckets past 2^31 - 1");
  if (md <= side / 2 || md > INT32_MAX) return refuse("max_distance outside (num_buckets per side / 2, 2^31 - 1]");
  const size_t size = format == 0 ? 4 : 2;
  for (int64_t i = 0; i < Lq; ++i)
    for (int64_t j = 0; j < Lk; ++j) {
      const int64_t b = t5_bucket((int64_t)k_pos[j] - q_pos[i], num_buckets, md, bidirectional, format);
      for (int64_t h = 0; h < H; ++h)
        memcpy((char*)bias + (size_t)((h * Lq + i) * Lk + j) * size, (const char*)table + (size_t)(b * H + h) * size,
               size);
    }
  return TL_OK;
}

#define HALF_RELATIVE(Dtype, T, format)                                                                            \
  tl_status tl_relative_pos_embedding_##Dtype(const T* table, const int32_t* q_pos, const int32_t* k_pos, T* bias, \
                                              int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets,              \
                                              int64_t max_distance, int bidirectional) {                           \
    return relative_any(table, q_pos, k_pos, bias, Lq, Lk, H, num_buckets, max_distance, bidirectional, format);   \
  }
HALF_RELATIVE(f32, float, 0)
HALF_RELATIVE(f16, uint16_t, 1)
HALF_RELATIVE(bf16, uint16_t, 2)
#undef HALF_RELATIVE

/* ==== Sample and Argmax on f16 and bf16 logits (half_m35 .. half_m39) ======== */
/* Each logit compared through a key whose unsigned order is the values' order
 * (NaN aside, -0 as +0), as a half kernel that never widens for a comparison;
 * the weights exp((l - m) / t) in double from the exact widened logits. */

static int half_is_nan(uint16_t h, int bf16) {
#if MUTANT(35) /* bf16 NaN known by the canonical quiet pattern 0x7fc0 alone: other payloads are numbers */
  if (bf16) return (h & 0x7fffu) == 0x7fc0u;
#endif
  return bf16 ? (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0 : (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}

/* The order key: sign-magnitude patterns to an unsigned order, -0 as +0. */
static int32_t half_key(uint16_t h, int bf16) {
#if MUTANT(36) /* f16 patterns compared as signed 16-bit integers: the order reversed among negatives, -0 below +0 */
  if (!bf16) return (int16_t)h;
#endif
  (void)bf16;
  if ((h & 0x7fffu) == 0) return 0x8000;
  return (h & 0x8000u) ? (int32_t)(0xffffu - h) : (int32_t)(h | 0x8000u);
}

/* A logit as read: its pattern, */
static uint16_t half_load(uint16_t h, int bf16) {
#if MUTANT(37) /* f16 subnormal logits flushed to zero on the way in (denormals-are-zero) */
  if (!bf16 && (h & 0x7c00u) == 0) h &= 0x8000u;
#endif
  (void)bf16;
  return h;
}
/* and its value. */
static float half_widen(uint16_t h, int bf16) {
  h = half_load(h, bf16);
  return bf16 ? from_bf16(h) : from_f16(h);
}

/* The lowest index of the largest number among x[0], x[step], ...; -1 if none. */
static int32_t half_argmax(const uint16_t* x, int64_t n, int64_t step, int bf16) {
  int32_t best = -1;
  int32_t best_key = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t h = x[i * step];
    if (half_is_nan(h, bf16)) continue;
    const int32_t key = half_key(half_load(h, bf16), bf16);
    if (best < 0 || key > best_key) best = (int32_t)i, best_key = key;
  }
  return best;
}

static tl_status argmax_axis_half(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index,
                                  int bf16) {
  int64_t n = 0;
  if (rank < 1) return refuse("argmax: rank 0");
  tl_status s = read_dims(shape, rank, &n);
  if (s != TL_OK) return s;
  if (axis < -rank || axis >= rank) return refuse("argmax: axis out of range");
  const int64_t ax = axis < 0 ? axis + rank : axis;
  if (shape[ax] > INT32_MAX) return refuse("argmax: the axis is too long for int32");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    if (i < ax) outer *= shape[i];
    if (i > ax) inner *= shape[i];
  }
  if (n > 0 && x == NULL) return refuse("argmax: x is NULL");
  if (outer * inner > 0 && index == NULL) return refuse("argmax: index is NULL");
  const int64_t length = shape[ax];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      index[o * inner + i] = half_argmax(x + o * length * inner + i, length, inner, bf16);
  return TL_OK;
}

tl_status tl_argmax_axis_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  return argmax_axis_half(x, shape, rank, axis, index, 0);
}
tl_status tl_argmax_axis_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  return argmax_axis_half(x, shape, rank, axis, index, 1);
}

/* TopK's and TopP's order: value descending, ties by lower index, NaN last. */
static const uint16_t* g_half_sort;
static int g_half_sort_bf16;

static int half_before(const void* pa, const void* pb) {
  const int64_t a = *(const int64_t*)pa, b = *(const int64_t*)pb;
  const uint16_t ha = g_half_sort[a], hb = g_half_sort[b];
  const int bf16 = g_half_sort_bf16, na = half_is_nan(ha, bf16), nb = half_is_nan(hb, bf16);
  if (na != nb) return na ? 1 : -1;
#if MUTANT(39) /* bf16 sorted on the raw patterns as unsigned integers: negatives above positives, reversed */
  const int32_t ka = bf16 ? ha : half_key(ha, bf16), kb = bf16 ? hb : half_key(hb, bf16);
#else
  const int32_t ka = half_key(ha, bf16), kb = half_key(hb, bf16);
#endif
  if (!na && ka != kb) return ka > kb ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

/* PCG32 XSH-RR of tinyllm/sampling.h: u of row r. */
static double half_draw_u(uint64_t seed, uint64_t r) {
  uint64_t state = 0;
  const uint64_t inc = (r << 1u) | 1u;
  state = state * 6364136223846793005ULL + inc;
  state += seed;
  state = state * 6364136223846793005ULL + inc;
  const uint64_t old = state;
  const uint32_t x = (uint32_t)(((old >> 18u) ^ old) >> 27u), rot = (uint32_t)(old >> 59u);
  return (double)(((x >> rot) | (x << ((32u - rot) & 31u))) >> 8) * 0x1p-24;
}

static int32_t sample_half_row(const uint16_t* h, int64_t n, int bf16, int32_t method, float t, int64_t k, float p,
                               float min_p, double u, double* w, int64_t* idx) {
  const int32_t top = half_argmax(h, n, 1, bf16);
  if (method == TL_SAMPLE_GREEDY) return top;
  if (top < 0) return -1;
  const double m = half_widen(h[top], bf16);
  if (m == -INFINITY) return -1;
  for (int64_t i = 0; i < n; ++i) {
    const double l = half_widen(h[i], bf16);
    if (isnan(l) || l == -INFINITY) w[i] = 0;
    else if (isinf(m)) w[i] = l == m ? 1.0 : 0.0;
    else w[i] = exp((l - m) / t);
#if MUTANT(38) /* the weights held in the logits' dtype (softmax output in half, then the draw) */
    w[i] = bf16 ? from_bf16(to_bf16((float)w[i])) : from_f16(to_f16((float)w[i]));
#endif
  }
  for (int64_t i = 0; i < n; ++i) idx[i] = i;
  int64_t count = n;
  if (method == TL_SAMPLE_TOP_K || method == TL_SAMPLE_TOP_P) {
    g_half_sort = h;
    g_half_sort_bf16 = bf16;
    qsort(idx, (size_t)n, sizeof *idx, half_before);
  }
  if (method == TL_SAMPLE_TOP_K) {
    count = k;
  } else if (method == TL_SAMPLE_TOP_P) {
    double z = 0, c = 0;
    for (int64_t i = 0; i < n; ++i) z += w[i];
    count = 0;
    for (int64_t j = 0; j < n && (c += w[idx[j]]) / z <= p; ++j) ++count;
    if (count < 1) count = 1;
  } else if (method == TL_SAMPLE_MIN_P) {
    count = 0;
    for (int64_t i = 0; i < n; ++i)
      if (w[i] >= min_p) idx[count++] = i; /* max(w) = 1 */
  }
  double z = 0;
  for (int64_t j = 0; j < count; ++j) z += w[idx[j]];
  if (!(z > 0)) return -1;
  double c = 0;
  int64_t last = -1;
  for (int64_t j = 0; j < count; ++j) {
    c += w[idx[j]];
    if (w[idx[j]] > 0) last = idx[j];
    if (u * z < c) return (int32_t)idx[j];
  }
  return (int32_t)last;
}

static tl_status sample_half(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                             float t, int64_t k, float p, float min_p, uint64_t seed, int bf16) {
  if (rows < 0 || vocab < 1 || vocab > INT32_MAX) return refuse("sample: rows < 0 or vocab outside 1..INT32_MAX");
  if ((double)rows * (double)vocab * 4.0 > (double)INT64_MAX) return refuse("sample: rows * vocab * 4 overflows");
  if (method < 0 || method > 4) return refuse("sample: unknown method");
  if (method != TL_SAMPLE_GREEDY) {
    if (!(t > 0.0f) || isinf(t)) return refuse("sample: temperature");
    if (method == TL_SAMPLE_TOP_K && (k < 1 || k > vocab)) return refuse("sample: top_k");
    if (method == TL_SAMPLE_TOP_P && !(p > 0.0f && p <= 1.0f)) return refuse("sample: top_p");
    if (method == TL_SAMPLE_MIN_P && !(min_p >= 0.0f && min_p <= 1.0f)) return refuse("sample: min_p");
  }
  if (rows == 0) return TL_OK;
  static uint64_t counter = 0;
  if (seed == 0) seed = 0x9E3779B97F4A7C15ULL * ++counter ^ (uint64_t)(uintptr_t)&counter;
  double* w = malloc((size_t)vocab * sizeof *w);
  int64_t* idx = malloc((size_t)vocab * sizeof *idx);
  if (w == NULL || idx == NULL) {
    free(w);
    free(idx);
    return refuse("sample: out of memory");
  }
  for (int64_t r = 0; r < rows; ++r)
    tokens[r] = sample_half_row(logits + r * vocab, vocab, bf16, method, t, k, p, min_p, half_draw_u(seed, (uint64_t)r),
                                w, idx);
  free(w);
  free(idx);
  return TL_OK;
}

tl_status tl_sample_f16(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                        float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  return sample_half(logits, tokens, rows, vocab, method, temperature, top_k, top_p, min_p, seed, 0);
}
tl_status tl_sample_bf16(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                         float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  return sample_half(logits, tokens, rows, vocab, method, temperature, top_k, top_p, min_p, seed, 1);
}
/* ==== end of Sample and Argmax on half logits ================================ */

/* ==== the f16 and bf16 KV caches of tinyllm/kv_cache.h (half_m26 .. half_m29) ==== */

/* The lifecycle of kv_cache_base.c (the same refusals); K and V stored as
 * 16-bit elements, each f32 value rounded once to the format. */
struct tl_kv_cache {
  int64_t layers, heads, dim, max_seq;
  int f16;     /* 1: f16, 0: bf16 */
  void *k, *v; /* [layers][heads][max_seq][dim] */
  unsigned char* appended;
  int64_t past, s;
};

#if MUTANT(26)
/* half_m26: a cache that stores f32 and reads f16: the buffers are laid out
 * for 4-byte f32 elements and append writes the f32 values there unrounded
 * (the f32 cache's append), while the view hands out the same memory as
 * 16-bit elements at the element offset, so element i reads the i-th
 * 2-byte half of the f32 words. */
typedef float kv_elem;
#else
typedef uint16_t kv_elem;
#endif

static int64_t kv_at(const tl_kv_cache* c, int64_t layer, int64_t h, int64_t t) {
  return ((layer * c->heads + h) * c->max_seq + t) * c->dim;
}

/* One f32 value as the cache stores it. The mutants:
 * half_m27: demotion by truncation instead of RNE on the way into the cache
 *   (a NaN kept a NaN);
 * half_m28: bf16 rounded by the bias trick without a NaN test: a NaN whose
 *   payload is in the low 16 bits becomes an infinity, one of 0x7fff8000 and
 *   up wraps to -0;
 * half_m29: f16 K and V clamped to +-65504 before the conversion (fminf,
 *   fmaxf): overflow and infinities stored as +-65504, a NaN as -65504. */
static kv_elem kv_store(int f16, float x) {
#if MUTANT(26)
  (void)f16;
  return x;
#elif MUTANT(27)
  uint32_t b;
  memcpy(&b, &x, 4);
  if (f16) return truncated_f16(x);
  return isnan(x) ? (uint16_t)((b >> 16) | 0x40u) : (uint16_t)(b >> 16);
#elif MUTANT(28)
  uint32_t b;
  memcpy(&b, &x, 4);
  if (f16) return to_f16(x);
  return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
#elif MUTANT(29)
  if (f16) return to_f16(fminf(fmaxf(x, -65504.0f), 65504.0f));
  return to_bf16(x);
#else
  return f16 ? to_f16(x) : to_bf16(x);
#endif
}

static tl_status kv_fail(tl_status s, const char* why) {
  last_error = why;
  return s;
}

static tl_status kv_create(int f16, int64_t layers, int64_t heads, int64_t dim, int64_t max_seq, tl_kv_cache** out) {
  *out = NULL;
  if (layers < 1 || heads < 1 || dim < 1 || max_seq < 1) return refuse("a size < 1");
  if ((long double)4 * layers * heads * dim * max_seq > (long double)INT64_MAX)
    return refuse("the cache's size overflows int64_t");
  tl_kv_cache* c = calloc(1, sizeof *c);
  if (!c) return refuse("out of memory");
  const size_t n = (size_t)(layers * heads * dim * max_seq);
  c->layers = layers, c->heads = heads, c->dim = dim, c->max_seq = max_seq, c->f16 = f16;
  c->k = calloc(n, sizeof(kv_elem));
  c->v = calloc(n, sizeof(kv_elem));
  c->appended = calloc((size_t)layers, 1);
  if (!c->k || !c->v || !c->appended) {
    free(c->k), free(c->v), free(c->appended), free(c);
    return refuse("out of memory");
  }
  *out = c;
  return TL_OK;
}
static tl_status kv_create_f16(int64_t layers, int64_t heads, int64_t dim, int64_t max_seq, tl_kv_cache** out) {
  return kv_create(1, layers, heads, dim, max_seq, out);
}
static tl_status kv_create_bf16(int64_t layers, int64_t heads, int64_t dim, int64_t max_seq, tl_kv_cache** out) {
  return kv_create(0, layers, heads, dim, max_seq, out);
}

static void kv_destroy(tl_kv_cache* c) {
  if (!c) return;
  free(c->k), free(c->v), free(c->appended), free(c);
}

static tl_status kv_begin(tl_kv_cache* c, int64_t s) {
  if (s < 1) return refuse("s < 1");
  if (c->s > 0) return refuse("a forward is in progress");
  if (c->past + s > c->max_seq) return kv_fail(TL_ERR_CONTEXT_OVERFLOW, "past + s > max_seq");
  c->s = s;
  memset(c->appended, 0, (size_t)c->layers);
  return TL_OK;
}

static tl_status kv_append_f32(tl_kv_cache* c, int64_t layer, const float* k, const float* v) {
  if (c->s == 0) return refuse("append outside a forward");
  if (layer < 0 || layer >= c->layers) return refuse("layer out of range");
  if (c->appended[layer]) return refuse("layer appended twice");
  kv_elem *ck = c->k, *cv = c->v;
  for (int64_t h = 0; h < c->heads; ++h)
    for (int64_t t = 0; t < c->s; ++t)
      for (int64_t d = 0; d < c->dim; ++d) {
        const int64_t to = kv_at(c, layer, h, c->past + t) + d, from = (h * c->s + t) * c->dim + d;
        ck[to] = kv_store(c->f16, k[from]);
        cv[to] = kv_store(c->f16, v[from]);
      }
  c->appended[layer] = 1;
  return TL_OK;
}

static tl_status kv_view_half(const tl_kv_cache* c, int64_t layer, tl_kv_view_half* out) {
  if (layer < 0 || layer >= c->layers) return refuse("layer out of range");
  /* half_m26: (uint16_t*) of f32 storage, at the element offset */
  out->k = (const uint16_t*)c->k + kv_at(c, layer, 0, 0);
  out->v = (const uint16_t*)c->v + kv_at(c, layer, 0, 0);
  out->length = c->past + (c->s > 0 && c->appended[layer] ? c->s : 0);
  out->head_stride = c->max_seq * c->dim;
  return TL_OK;
}

static tl_status kv_commit(tl_kv_cache* c) {
  if (c->s == 0) return refuse("commit outside a forward");
  for (int64_t l = 0; l < c->layers; ++l)
    if (!c->appended[l]) return refuse("a layer has not appended");
  c->past += c->s;
  c->s = 0;
  return TL_OK;
}

static void kv_reset(tl_kv_cache* c) {
  c->past = 0;
  c->s = 0;
}

static int64_t kv_past_seq_len(const tl_kv_cache* c) { return c->past; }

static const tl_kv_cache_half_api kv_f16_api = {
    1, kv_create_f16, kv_destroy, kv_begin, kv_append_f32, kv_view_half, kv_commit, kv_reset, kv_past_seq_len};
static const tl_kv_cache_half_api kv_bf16_api = {
    1, kv_create_bf16, kv_destroy, kv_begin, kv_append_f32, kv_view_half, kv_commit, kv_reset, kv_past_seq_len};

const tl_kv_cache_half_api* tl_kv_cache_f16_api_v1(void) { return &kv_f16_api; }
const tl_kv_cache_half_api* tl_kv_cache_bf16_api_v1(void) { return &kv_bf16_api; }

/* ==== Dequantize to f16 and bf16 (tinyllm/quant.h): mutants half_m30, half_m31 ==== */

/* A block's f16 scale (little-endian) as a float. */
static float scale_at(const uint8_t* p) { return from_f16((uint16_t)(p[0] | (p[1] << 8))); }

/* Q4_K's 6-bit scale and min of sub-block j. */
static void q4k_scale_min(const uint8_t* s, int j, int* sc, int* m) {
  if (j < 4) {
    *sc = s[j] & 63;
    *m = s[j + 4] & 63;
  } else {
    *sc = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
    *m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

#if MUTANT(31)
/* The exact d sc q - dmin m (a multiple of 2^-24 below 2^27: exact in a
 * double) rounded once to the dtype, by the compiler's double conversion for
 * f16 and a rounded 8-bit significand for bf16 (normal values). */
static uint16_t exact_to(double v, int f16) {
  if (f16) {
    const _Float16 h = (_Float16)v;
    uint16_t bits;
    memcpy(&bits, &h, 2);
    return bits;
  }
  int e;
  const double frac = frexp(v, &e);
  return to_bf16((float)ldexp(nearbyint(ldexp(frac, 8)), e - 8));
}
#endif

/* Value i (0..255) of a Q4_K block: its 4-bit quant, 6-bit scale and min. */
static void q4k_parts(const uint8_t* b, int i, int* q, int* sc, int* m) {
  q4k_scale_min(b + 4, i / 32, sc, m);
  const uint8_t byte = b[16 + 32 * (i / 64) + i % 32];
  *q = (i % 64) < 32 ? (byte & 15) : (byte >> 4);
}

/* ggml's f32 value: the products exact, one rounding, the difference's. */
static float q4k_f32(const uint8_t* b, int i) {
  int q, sc, m;
  q4k_parts(b, i, &q, &sc, &m);
  return scale_at(b) * (float)sc * (float)q - scale_at(b + 2) * (float)m;
}

/* Value i of a Q4_K block, rounded to the dtype (f16 when f16). */
static uint16_t q4k_value(const uint8_t* b, int i, int f16) {
#if MUTANT(30) || MUTANT(31)
  int q, sc, m;
  q4k_parts(b, i, &q, &sc, &m);
  const float d = scale_at(b), dmin = scale_at(b + 2);
#endif
#if MUTANT(30) /* computed in the dtype: d sc, its product with q, dmin m and the difference each rounded to it */
  const float scale = f16 ? from_f16(to_f16(d * (float)sc)) : from_bf16(to_bf16(d * (float)sc));
  const float prod = f16 ? from_f16(to_f16(scale * (float)q)) : from_bf16(to_bf16(scale * (float)q));
  const float min = f16 ? from_f16(to_f16(dmin * (float)m)) : from_bf16(to_bf16(dmin * (float)m));
  return f16 ? to_f16(prod - min) : to_bf16(prod - min);
#elif MUTANT(31) /* the exact value rounded once, not ggml's f32 value rounded */
  return exact_to((double)d * sc * q - (double)dmin * m, f16);
#else
  return f16 ? to_f16(q4k_f32(b, i)) : to_bf16(q4k_f32(b, i));
#endif
}

/* rows x k values in blocks of qk: sizes, then whole blocks. */
static tl_status quant_rows(int64_t rows, int64_t k, int64_t qk) {
  if (rows < 0 || k < 0) return refuse("a negative size");
  if ((double)rows * (double)k > (double)INT64_MAX / 4) return refuse("more bytes than an int64_t counts");
  if (k % qk != 0) {
    last_error = "k is not a multiple of the block length";
    return TL_ERR_SHAPE;
  }
  return TL_OK;
}

/* format 0 Q8_0, 1 Q4_0, 2 Q4_K into dtype 0 f32, 1 f16, 2 bf16: the f32
 * value, rounded once to a half dtype. */
static tl_status dequantize_any(int format, const void* blocks, void* y, int64_t rows, int64_t k, int dtype) {
  const int64_t qk = format == 2 ? 256 : 32, bytes = format == 0 ? 34 : format == 1 ? 18 : 144;
  const tl_status st = quant_rows(rows, k, qk);
  if (st != TL_OK) return st;
  const uint8_t* in = (const uint8_t*)blocks;
  for (int64_t b = 0; b < rows * k / qk; ++b) {
    const uint8_t* blk = in + b * bytes;
    for (int i = 0; i < qk; ++i) {
      const int64_t at = b * qk + i;
      if (format == 2 && dtype != 0) {
        ((uint16_t*)y)[at] = q4k_value(blk, i, dtype == 1);
        continue;
      }
      float v;
      if (format == 2) {
        v = q4k_f32(blk, i);
      } else {
        const int q = format == 0 ? (int8_t)blk[2 + i] : (i < 16 ? (blk[2 + i] & 15) : (blk[2 + i - 16] >> 4)) - 8;
        v = (float)q * scale_at(blk); /* exact */
      }
      if (dtype == 0) ((float*)y)[at] = v;
      else ((uint16_t*)y)[at] = dtype == 1 ? to_f16(v) : to_bf16(v);
    }
  }
  return TL_OK;
}

tl_status tl_dequantize_q8_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize_any(0, blocks, y, rows, k, 0);
}
tl_status tl_dequantize_q4_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize_any(1, blocks, y, rows, k, 0);
}
tl_status tl_dequantize_q4_k_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize_any(2, blocks, y, rows, k, 0);
}
tl_status tl_dequantize_q8_0_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_any(0, blocks, y, rows, k, 1);
}
tl_status tl_dequantize_q4_0_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_any(1, blocks, y, rows, k, 1);
}
tl_status tl_dequantize_q4_k_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_any(2, blocks, y, rows, k, 1);
}
tl_status tl_dequantize_q8_0_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_any(0, blocks, y, rows, k, 2);
}
tl_status tl_dequantize_q4_0_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_any(1, blocks, y, rows, k, 2);
}
tl_status tl_dequantize_q4_k_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_any(2, blocks, y, rows, k, 2);
}

/* ==== Quantize from f16 and bf16 (tinyllm/quant.h), Q8_0 and Q4_0: mutants half_m32 .. half_m34 ==== */

/* An f16 value widened for quantizing: exact, an infinity and a NaN kept. */
static float widen_input(uint16_t h, int f16) {
  if (!f16) return from_bf16(h);
#if MUTANT(33) /* the exponent field read as a normal one's: Inf and NaN come out 65536 and up, and are quantized */
  if ((h & 0x7c00u) == 0x7c00u) return (h & 0x8000u ? -1.0f : 1.0f) * ldexpf(1.0f + (float)(h & 0x3ffu) / 1024, 16);
#elif MUTANT(34) /* subnormal inputs flushed to zero (DAZ) */
  if ((h & 0x7c00u) == 0) return (h & 0x8000u) ? -0.0f : 0.0f;
#endif
  return from_f16(h);
}

/* A block scale's f16 bits, rounded by the compiler's conversion. */
static uint16_t scale_bits(float d) {
  const _Float16 h = (_Float16)d;
  uint16_t bits;
  memcpy(&bits, &h, 2);
  return bits;
}

/* The f32 scale of a block of 32 (Q8_0: max|x| / 127; Q4_0: the first value
 * of largest magnitude over -8). */
static float block_scale(const float* x, int q8) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < 32; ++j)
    if (amax < fabsf(x[j])) {
      amax = fabsf(x[j]);
      max = x[j];
    }
  return q8 ? amax / 127.0f : max / -8.0f;
}

/* format 0 Q8_0, 1 Q4_0: n checked values, of dtype 0 f32, 1 f16 or 2 bf16
 * as given, checked whole, then every block. */
static tl_status quantize_floats(int format, const float* v, void* blocks, int64_t n, int dtype) {
  const int64_t bytes = format == 0 ? 34 : 18;
  for (int64_t i = 0; i < n; ++i)
    if (!isfinite(v[i])) return refuse("a value that is not finite");
  for (int64_t b = 0; b < n / 32; ++b)
    if ((scale_bits(block_scale(v + 32 * b, format == 0)) & 0x7c00u) == 0x7c00u)
      return refuse("a block scale past f16");
  uint8_t* out = (uint8_t*)blocks;
  for (int64_t b = 0; b < n / 32; ++b) {
    const float* xb = v + 32 * b;
    uint8_t* ob = out + b * bytes;
    float d = block_scale(xb, format == 0);
#if MUTANT(32) /* Q8_0's scale rounded to the input's dtype, stored and used from there */
    if (format == 0 && dtype != 0) d = dtype == 1 ? from_f16(scale_bits(d)) : from_bf16(to_bf16(d));
#endif
    (void)dtype;
    const float inv = d != 0.0f && isfinite(1.0f / d) ? 1.0f / d : 0.0f;
    const uint16_t h = scale_bits(d);
    ob[0] = (uint8_t)(h & 0xffu);
    ob[1] = (uint8_t)(h >> 8);
    for (int j = 0; j < 32; ++j) {
      if (format == 0) {
        ob[2 + j] = (uint8_t)(int8_t)roundf(xb[j] * inv);
      } else if (j < 16) {
        const int lo = (int)(xb[j] * inv + 8.5f), hi = (int)(xb[j + 16] * inv + 8.5f);
        ob[2 + j] = (uint8_t)((lo < 15 ? lo : 15) | ((hi < 15 ? hi : 15) << 4));
      }
    }
  }
  return TL_OK;
}

static tl_status quantize_f32(int format, const float* x, void* blocks, int64_t rows, int64_t k) {
  const tl_status st = quant_rows(rows, k, 32);
  return st != TL_OK ? st : quantize_floats(format, x, blocks, rows * k, 0);
}

/* The half input widened, then the f32 quantizer. */
static tl_status quantize_half(int format, const uint16_t* x, void* blocks, int64_t rows, int64_t k, int f16) {
  tl_status st = quant_rows(rows, k, 32);
  if (st != TL_OK) return st;
  const int64_t n = rows * k;
  float* v = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  if (!v) return refuse("out of memory");
  for (int64_t i = 0; i < n; ++i) v[i] = widen_input(x[i], f16);
  st = quantize_floats(format, v, blocks, n, f16 ? 1 : 2);
  free(v);
  return st;
}

tl_status tl_quantize_q8_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_f32(0, x, blocks, rows, k);
}
tl_status tl_quantize_q4_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_f32(1, x, blocks, rows, k);
}
tl_status tl_quantize_q8_0_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half(0, x, blocks, rows, k, 1);
}
tl_status tl_quantize_q4_0_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half(1, x, blocks, rows, k, 1);
}
tl_status tl_quantize_q8_0_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half(0, x, blocks, rows, k, 0);
}
tl_status tl_quantize_q4_0_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half(1, x, blocks, rows, k, 0);
}

/* ==== Transpose, Permute and Reshape of f16 and bf16: the patterns moved ===== */

/* y (contiguous, dims yd) gets x read through `src` strides, one per y dim:
 * the 16-bit patterns copied as they are. */
static void gather_half(const uint16_t* x, const int64_t* yd, const int64_t* src, int64_t rank, int64_t n, uint16_t* y,
                        int bf16) {
  int64_t idx[TL_TENSOR_MAX_RANK] = {0}, off = 0;
  for (int64_t k = 0; k < n; ++k) {
    uint16_t h = x[off];
#if MUTANT(40) /* half_m40: f16 moved through f32 and back: a signalling NaN comes back quiet */
    if (!bf16) h = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) ? (uint16_t)(h | 0x200u) : h;
#elif MUTANT(41) /* half_m41: a bf16 copy that canonicalizes every NaN to 0x7fc0 */
    if (bf16 && (h & 0x7f80u) == 0x7f80u && (h & 0x7fu)) h = 0x7fc0u;
#else
    (void)bf16;
#endif
    y[k] = h;
    for (int64_t d = rank - 1; d >= 0; --d) {
      off += src[d];
      if (++idx[d] < yd[d]) break;
      off -= src[d] * yd[d];
      idx[d] = 0;
    }
  }
}

/* Output axis i is input axis perm[i]; perm already checked. */
static void permute_half_patterns(const uint16_t* x, const int64_t* d, int64_t rank, const int64_t* perm, int64_t n,
                                  uint16_t* y, int bf16) {
  int64_t stride[TL_TENSOR_MAX_RANK], yd[TL_TENSOR_MAX_RANK], src[TL_TENSOR_MAX_RANK], step = 1;
  for (int64_t i = rank - 1; i >= 0; --i) stride[i] = step, step *= d[i];
  for (int64_t i = 0; i < rank; ++i) yd[i] = d[perm[i]], src[i] = stride[perm[i]];
#if MUTANT(42) /* half_m42: rows copied as 4-byte words: an odd last dimension loses its final element */
  if (rank > 0 && src[rank - 1] == 1) {
    const int64_t row = yd[rank - 1];
    for (int64_t r = 0; r < n / row; ++r) {
      int64_t off = 0, rest = r;
      for (int64_t i = rank - 2; i >= 0; --i) off += (rest % yd[i]) * src[i], rest /= yd[i];
      memcpy(y + r * row, x + off, (size_t)(row / 2) * 4);
    }
    (void)bf16;
    return;
  }
#endif
  gather_half(x, yd, src, rank, n, y, bf16);
}

static tl_status transpose_half(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y, int bf16) {
  int64_t n = 0, perm[TL_TENSOR_MAX_RANK];
  if (rank < 2) return refuse("transpose: rank below 2");
  tl_status s = read_dims(shape, rank, &n);
  if (s != TL_OK) return s;
  if (n > 0 && (x == NULL || y == NULL)) return refuse("transpose: x or y is NULL");
  if (n == 0) return TL_OK;
  for (int64_t i = 0; i < rank; ++i) perm[i] = i;
  perm[rank - 2] = rank - 1, perm[rank - 1] = rank - 2;
  permute_half_patterns(x, shape, rank, perm, n, y, bf16);
  return TL_OK;
}

static tl_status permute_half(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y,
                              int bf16) {
  int64_t n = 0;
  tl_status s = read_dims(shape, rank, &n);
  if (s != TL_OK) return s;
  if (rank > 0 && perm == NULL) return refuse("permute: perm is NULL");
  int seen[TL_TENSOR_MAX_RANK] = {0};
  for (int64_t i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]) return refuse("permute: perm is not a permutation");
    seen[perm[i]] = 1;
  }
  if (n > 0 && (x == NULL || y == NULL)) return refuse("permute: x or y is NULL");
  if (n == 0) return TL_OK;
  permute_half_patterns(x, shape, rank, perm, n, y, bf16);
  return TL_OK;
}

tl_status tl_transpose_f16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y) {
  return transpose_half(x, shape, rank, y, 0);
}
tl_status tl_transpose_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y) {
  return transpose_half(x, shape, rank, y, 1);
}
tl_status tl_permute_f16(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y) {
  return permute_half(x, shape, rank, perm, y, 0);
}
tl_status tl_permute_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y) {
  return permute_half(x, shape, rank, perm, y, 1);
}

/* y == x is the view; a distinct y gets x's patterns in order. */
static tl_status reshape_half(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y,
                              const int64_t* new_shape, int64_t new_rank) {
  int64_t n = 0, m = 0;
  tl_status s = read_dims(shape, rank, &n);
  if (s != TL_OK) return s;
  if ((s = read_dims(new_shape, new_rank, &m)) != TL_OK) return s;
  if (n != m) {
    last_error = "reshape: the element counts differ";
    return TL_ERR_SHAPE;
  }
  if (n > 0 && (x == NULL || y == NULL)) return refuse("reshape: x or y is NULL");
  if (y == x || n == 0) return TL_OK;
#if MUTANT(43) /* half_m43: Reshape's copy in 4-byte words: an odd count loses its last element */
  memcpy(y, x, (size_t)(n / 2) * 4);
#else
  memcpy(y, x, (size_t)n * 2);
#endif
  return TL_OK;
}

tl_status tl_reshape_f16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y, const int64_t* new_shape,
                         int64_t new_rank) {
  return reshape_half(x, shape, rank, y, new_shape, new_rank);
}
tl_status tl_reshape_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y, const int64_t* new_shape,
                          int64_t new_rank) {
  return reshape_half(x, shape, rank, y, new_shape, new_rank);
}
/* ==== end of Transpose, Permute and Reshape of f16 and bf16 ================== */

/* ==== BatchNorm, GroupNorm, InstanceNorm, AdaLN, AdaLN-Zero, FusedSkipNorm ==
 * of f16 and bf16 (tinyllm/norm.h): x (and r, skip) widened exactly, the
 * running statistics, gains, biases and the conditioning f32 as given, every
 * statistic and output in double, y rounded once to the dtype; AdaLN-Zero's
 * h and FusedSkipNorm's sum are the float results of the f32 ops rounded to
 * the dtype, and the norm is taken of them as stored. */

/* The shape [N, C, spatial...] (2 <= ndim): the refusals of the header. */
static tl_status channels_of(const int64_t* shape, int32_t ndim, float eps, int need_spatial, int64_t* n, int64_t* c,
                             int64_t* s) {
  const tl_status st = norm_dims(shape, ndim, 2, eps);
  if (st != TL_OK) return st;
  *n = shape[0];
  *c = shape[1];
  *s = 1;
  for (int32_t k = 2; k < ndim; ++k) *s *= shape[k];
  if (need_spatial && *s == 0) {
    last_error = "a spatial dimension is 0";
    return TL_ERR_SHAPE;
  }
  return TL_OK;
}

/* Mean and 1 / sqrt(variance + eps) of v[0, n) in double, two passes. */
static void moments_of(const double* v, int64_t n, float eps, int f16, double* mean, double* inv) {
  double sum = 0.0, sq = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += v[i];
  *mean = sum / (double)n;
  for (int64_t i = 0; i < n; ++i) {
#if MUTANT(55) /* half_m55: f16 GroupNorm's and InstanceNorm's sum of squares accumulated in f16: +Inf past 65504 */
    if (f16) {
      sq = from_f16(f16_from_double(sq + from_f16(f16_from_double((v[i] - *mean) * (v[i] - *mean)))));
      continue;
    }
#endif
    sq += (v[i] - *mean) * (v[i] - *mean);
  }
  (void)f16;
  *inv = 1.0 / sqrt(sq / (double)n + eps);
}

static double* new_doubles(int64_t n) {
  double* v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  if (v == NULL) last_error = "out of memory";
  return v;
}

static tl_status batch_norm_half(int f16, const uint16_t* x, const float* mean, const float* var, const float* g,
                                 const float* b, uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  int64_t n, c, s;
  const tl_status st = channels_of(shape, ndim, eps, 0, &n, &c, &s);
  if (st != TL_OK) return st;
  for (int64_t k = 0; k < n * c * s; ++k) {
    const int64_t ch = (k / s) % c;
#if MUTANT(56) /* half_m56: BatchNorm's x - mean held in the dtype: the mean's low bits lost, f16 overflow at 65504 */
    const double centred = widen(f16, half_from_double(f16, (double)widen(f16, x[k]) - mean[ch]));
#else
    const double centred = (double)widen(f16, x[k]) - mean[ch];
#endif
    y[k] = half_from_double(f16, centred / sqrt((double)var[ch] + eps) * g[ch] + b[ch]);
  }
  return TL_OK;
}

/* GroupNorm of `groups` groups; InstanceNorm is groups == C. */
static tl_status group_norm_half(int f16, const uint16_t* x, const float* g, const float* b, uint16_t* y, int64_t n,
                                 int64_t c, int64_t s, int64_t groups, float eps) {
  const int64_t size = c / groups * s;
  double* v = new_doubles(size);
  if (v == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t k = 0; k < n * groups; ++k) {
    for (int64_t i = 0; i < size; ++i) v[i] = widen(f16, x[k * size + i]);
    double mean, inv;
    moments_of(v, size, eps, f16, &mean, &inv);
    for (int64_t i = 0; i < size; ++i) {
      const int64_t ch = (k % groups) * (c / groups) + i / s;
      y[k * size + i] = half_from_double(f16, (v[i] - mean) * inv * g[ch] + b[ch]);
    }
  }
  free(v);
  return TL_OK;
}

static tl_status group_norm_checked(int f16, const uint16_t* x, const float* g, const float* b, uint16_t* y,
                                    const int64_t* shape, int32_t ndim, int64_t groups, float eps) {
  int64_t n, c, s;
  const tl_status st = channels_of(shape, ndim, eps, 1, &n, &c, &s);
  if (st != TL_OK) return st;
  if (groups < 1) return refuse("num_groups must be >= 1");
  if (c == 0 || c % groups != 0) {
    last_error = "num_groups does not divide C";
    return TL_ERR_SHAPE;
  }
  return group_norm_half(f16, x, g, b, y, n, c, s, groups, eps);
}

static tl_status instance_norm_checked(int f16, const uint16_t* x, const float* g, const float* b, uint16_t* y,
                                       const int64_t* shape, int32_t ndim, float eps) {
  int64_t n, c, s;
  const tl_status st = channels_of(shape, ndim, eps, 1, &n, &c, &s);
  if (st != TL_OK) return st;
  return c == 0 ? TL_OK : group_norm_half(f16, x, g, b, y, n, c, s, c, eps);
}

/* AdaLN of the rows of x[batch, tokens, d] (h as stored, for AdaLN-Zero). */
static tl_status ada_ln_rows(int f16, const uint16_t* x, const float* scale, const float* shift, uint16_t* y,
                             int64_t rows, int64_t tokens, int64_t d, float eps) {
  double* v = new_doubles(d);
  if (v == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < d; ++i) v[i] = widen(f16, x[r * d + i]);
    double mean, inv;
    moments_of(v, d, eps, 0, &mean, &inv);
    const int64_t at = r / tokens * d;
    for (int64_t i = 0; i < d; ++i) {
#if MUTANT(57) /* half_m57: AdaLN's gain 1 + scale rounded to the dtype before the product */
      const double gain = widen(f16, half_from_double(f16, 1.0 + scale[at + i]));
#else
      const double gain = 1.0 + scale[at + i];
#endif
      y[r * d + i] = half_from_double(f16, (v[i] - mean) * inv * gain + shift[at + i]);
    }
  }
  free(v);
  return TL_OK;
}

/* [B, ..., D] (2 <= ndim): rows, and tokens per sample. */
static tl_status samples_of(const int64_t* shape, int32_t ndim, float eps, int64_t* rows, int64_t* tokens, int64_t* d) {
  tl_status st = norm_dims(shape, ndim, 2, eps);
  if (st == TL_OK) st = rows_of(shape, ndim, eps, rows, d);
  if (st != TL_OK) return st;
  *tokens = shape[0] == 0 ? 1 : *rows / shape[0];
  return TL_OK;
}

static tl_status ada_ln_half(int f16, const uint16_t* x, const float* scale, const float* shift, uint16_t* y,
                             const int64_t* shape, int32_t ndim, float eps) {
  int64_t rows, tokens, d;
  const tl_status st = samples_of(shape, ndim, eps, &rows, &tokens, &d);
  return st != TL_OK ? st : ada_ln_rows(f16, x, scale, shift, y, rows, tokens, d, eps);
}

static tl_status ada_ln_zero_half(int f16, const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,
                                  const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim,
                                  float eps) {
  int64_t rows, tokens, d;
  const tl_status st = samples_of(shape, ndim, eps, &rows, &tokens, &d);
  if (st != TL_OK) return st;
  for (int64_t k = 0; k < rows * d; ++k) {
    const float product = (float)((double)gate[k / (tokens * d) * d + k % d] * widen(f16, r[k]));
    const float sum = (float)((double)widen(f16, x[k]) + product); /* the f32 op's h, Mul then Add */
#if MUTANT(59) /* half_m59: bf16 AdaLN-Zero's h demoted by truncation (the top half of the float) */
    if (!f16) {
      uint32_t bits;
      memcpy(&bits, &sum, 4);
      h[k] = (uint16_t)(bits >> 16);
      continue;
    }
#endif
    h[k] = f16 ? to_f16(sum) : to_bf16(sum);
  }
  return ada_ln_rows(f16, h, scale, shift, y, rows, tokens, d, eps);
}

static tl_status fused_skip_norm_half(int f16, const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum,
                                      uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  int64_t rows, d;
  const tl_status st = rows_of(shape, ndim, eps, &rows, &d);
  if (st != TL_OK) return st;
  double* v = new_doubles(d);
  if (v == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t r = 0; r < rows; ++r) {
    double sq = 0.0;
    for (int64_t i = 0; i < d; ++i) {
      const int64_t k = r * d + i;
      const float f = (float)((double)widen(f16, x[k]) + widen(f16, skip[k]));
      sum[k] = f16 ? to_f16(f) : to_bf16(f);
#if MUTANT(58) /* half_m58: FusedSkipNorm normalizes the unrounded float sum, not the sum as stored in the dtype */
      v[i] = f;
#else
      v[i] = widen(f16, sum[k]);
#endif
      sq += v[i] * v[i];
    }
    const double inv = 1.0 / sqrt(sq / (double)d + eps);
    for (int64_t i = 0; i < d; ++i) y[r * d + i] = half_from_double(f16, v[i] * inv * g[i]);
  }
  free(v);
  return TL_OK;
}

tl_status tl_batch_norm_f16(const uint16_t* x, const float* mean, const float* var, const float* g, const float* b,
                            uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  return batch_norm_half(1, x, mean, var, g, b, y, shape, ndim, eps);
}
tl_status tl_batch_norm_bf16(const uint16_t* x, const float* mean, const float* var, const float* g, const float* b,
                             uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  return batch_norm_half(0, x, mean, var, g, b, y, shape, ndim, eps);
}
tl_status tl_group_norm_f16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps) {
  return group_norm_checked(1, x, g, b, y, shape, ndim, num_groups, eps);
}
tl_status tl_group_norm_bf16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                             int32_t ndim, int64_t num_groups, float eps) {
  return group_norm_checked(0, x, g, b, y, shape, ndim, num_groups, eps);
}
tl_status tl_instance_norm_f16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                               int32_t ndim, float eps) {
  return instance_norm_checked(1, x, g, b, y, shape, ndim, eps);
}
tl_status tl_instance_norm_bf16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                                int32_t ndim, float eps) {
  return instance_norm_checked(0, x, g, b, y, shape, ndim, eps);
}
tl_status tl_ada_ln_f16(const uint16_t* x, const float* scale, const float* shift, uint16_t* y, const int64_t* shape,
                        int32_t ndim, float eps) {
  return ada_ln_half(1, x, scale, shift, y, shape, ndim, eps);
}
tl_status tl_ada_ln_bf16(const uint16_t* x, const float* scale, const float* shift, uint16_t* y, const int64_t* shape,
                         int32_t ndim, float eps) {
  return ada_ln_half(0, x, scale, shift, y, shape, ndim, eps);
}
tl_status tl_ada_ln_zero_f16(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,
                             const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim,
                             float eps) {
  return ada_ln_zero_half(1, x, r, gate, scale, shift, h, y, shape, ndim, eps);
}
tl_status tl_ada_ln_zero_bf16(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,
                              const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim,
                              float eps) {
  return ada_ln_zero_half(0, x, r, gate, scale, shift, h, y, shape, ndim, eps);
}
tl_status tl_fused_skip_norm_f16(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum, uint16_t* y,
                                 const int64_t* shape, int32_t ndim, float eps) {
  return fused_skip_norm_half(1, x, skip, g, sum, y, shape, ndim, eps);
}
tl_status tl_fused_skip_norm_bf16(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum, uint16_t* y,
                                  const int64_t* shape, int32_t ndim, float eps) {
  return fused_skip_norm_half(0, x, skip, g, sum, y, shape, ndim, eps);
}
/* ==== end of the f16 and bf16 norms of x[N, C, ...], AdaLN and FusedSkipNorm = */

/* ==== Concat, Split and Chunk of f16 and bf16: the patterns moved ========== */

/* `axis` in [-rank, rank) resolved into *ax. */
static tl_status cut_axis(int64_t axis, int64_t rank, int64_t* ax) {
  if (axis < -rank || axis >= rank) return refuse("an axis out of range");
  *ax = axis < 0 ? axis + rank : axis;
  return TL_OK;
}

/* outer, the axis' length and inner of dims around axis ax. */
static void around(const int64_t* d, int64_t rank, int64_t ax, int64_t* outer, int64_t* inner) {
  *outer = 1, *inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    if (i < ax) *outer *= d[i];
    if (i > ax) *inner *= d[i];
  }
}

#if MUTANT(48)
/* f16 widened with its exponent read from the pattern as a signed 16-bit
 * integer shifted right: the sign bit smears into the exponent field, so a
 * negative value is read as a tiny positive exponent. */
static float from_f16_signed(uint16_t h) {
  const int16_t s = (int16_t)h;
  const int e = s >> 10; /* not masked to 5 bits: negative for every negative h */
  const float m = (float)(s & 0x3ff);
  if (e == 0) return m * 0x1p-24f;
  if (e == 31) return m != 0.0f ? NAN : INFINITY;
  return ldexpf(1.0f + m * 0x1p-10f, e - 15) * (s < 0 ? -1.0f : 1.0f);
}
#endif

/* n patterns from x to y, as a copy of the half dtype (f16: bf16 == 0). */
static void copy_patterns(uint16_t* y, const uint16_t* x, int64_t n, int bf16) {
#if MUTANT(48) /* half_m48: f16 Concat through f32, widened through a signed integer */
  if (!bf16) {
    for (int64_t i = 0; i < n; ++i) y[i] = to_f16(from_f16_signed(x[i]));
    return;
  }
#endif
  (void)bf16;
  if (n > 0) memcpy(y, x, (size_t)n * 2);
}

static tl_status concat_half(const uint16_t* const* xs, const int64_t* shapes, int64_t count, int64_t rank,
                             int64_t axis, uint16_t* y, int bf16) {
  int64_t ax = 0, total = 0, n = 0, outer, inner;
  if (count < 1) return refuse("concat: count below 1");
  if (rank < 1 || rank > TL_TENSOR_MAX_RANK) return refuse("concat: a rank outside 1..6");
  if (xs == NULL || shapes == NULL) return refuse("concat: xs or shapes is NULL");
  tl_status s = cut_axis(axis, rank, &ax);
  if (s != TL_OK) return s;
  for (int64_t k = 0; k < count; ++k)
    if ((s = read_dims(shapes + k * rank, rank, &n)) != TL_OK) return s;
  for (int64_t k = 0; k < count; ++k) {
    for (int64_t d = 0; d < rank; ++d)
      if (d != ax && shapes[k * rank + d] != shapes[d]) {
        last_error = "concat: the shapes differ off the axis";
        return TL_ERR_SHAPE;
      }
    total += shapes[k * rank + ax];
    if (total > INT64_MAX / 8) return refuse("concat: too many elements");
  }
  int64_t out[TL_TENSOR_MAX_RANK];
  for (int64_t d = 0; d < rank; ++d) out[d] = d == ax ? total : shapes[d];
  if ((s = read_dims(out, rank, &n)) != TL_OK) return s;
  for (int64_t k = 0; k < count; ++k) {
    int64_t m = 0;
    read_dims(shapes + k * rank, rank, &m);
    if (m > 0 && xs[k] == NULL) return refuse("concat: an input is NULL");
  }
  if (n > 0 && y == NULL) return refuse("concat: y is NULL");
  if (n == 0) return TL_OK;
  around(out, rank, ax, &outer, &inner);
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = shapes[k * rank + ax] * inner;
    for (int64_t o = 0; o < outer && run > 0; ++o)
      copy_patterns(y + (o * total + start) * inner, xs[k] + o * run, run, bf16);
    start += shapes[k * rank + ax];
  }
  return TL_OK;
}

/* x's runs along the axis into the parts of lengths len[0..count). */
static void cut_half(const uint16_t* x, const int64_t* d, int64_t rank, int64_t ax, const int64_t* len, int64_t count,
                     uint16_t* const* ys, int bf16) {
  int64_t outer, inner, start = 0;
  around(d, rank, ax, &outer, &inner);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = len[k] * inner;
    for (int64_t o = 0; o < outer && run > 0; ++o) {
      const uint16_t* from = x + (o * d[ax] + start) * inner;
      uint16_t* to = ys[k] + o * run;
#if MUTANT(49) /* half_m49: bf16 copied through f32 under denormals-are-zero: its subnormals (f32's) become +-0 */
      if (bf16) {
        for (int64_t i = 0; i < run; ++i) to[i] = (from[i] & 0x7f80u) == 0 ? (uint16_t)(from[i] & 0x8000u) : from[i];
        continue;
      }
#endif
      (void)bf16;
      memcpy(to, from, (size_t)run * 2);
    }
    start += len[k];
  }
}

/* x's checks and the parts' pointers: NULL only for an empty part. */
static tl_status cut_checks(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t* ax,
                            int64_t* n) {
  if (rank < 1) return refuse("a cut of rank below 1");
  tl_status s = read_dims(shape, rank, n);
  if (s != TL_OK) return s;
  if ((s = cut_axis(axis, rank, ax)) != TL_OK) return s;
  (void)x;
  return TL_OK;
}

static tl_status parts_present(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t ax, const int64_t* len,
                               int64_t count, uint16_t* const* ys, int64_t n) {
  if (n > 0 && x == NULL) return refuse("x is NULL");
  int64_t others = 1;
  for (int64_t i = 0; i < rank; ++i)
    if (i != ax) others *= shape[i];
  for (int64_t k = 0; k < count; ++k)
    if (others > 0 && len[k] > 0 && (ys == NULL || ys[k] == NULL)) return refuse("a part is NULL");
  return TL_OK;
}

static tl_status split_half(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                            int64_t count, uint16_t* const* ys, int bf16) {
  int64_t ax = 0, n = 0, sum = 0;
  tl_status s = cut_checks(x, shape, rank, axis, &ax, &n);
  if (s != TL_OK) return s;
  if (count < 1) return refuse("split: count below 1");
  if (sizes == NULL) return refuse("split: sizes is NULL");
  for (int64_t k = 0; k < count; ++k)
    if (sizes[k] < 0) return refuse("split: a negative size");
  for (int64_t k = 0; k < count && sum <= shape[ax]; ++k)
    sum = sizes[k] > shape[ax] - sum ? shape[ax] + 1 : sum + sizes[k]; /* past the axis: no overflow */
  if (sum != shape[ax]) {
    last_error = "split: the sizes do not add up to the axis";
    return TL_ERR_SHAPE;
  }
  if ((s = parts_present(x, shape, rank, ax, sizes, count, ys, n)) != TL_OK) return s;
  if (n == 0) return TL_OK;
#if MUTANT(47) /* half_m47: Split's runs copied in 4-byte words: an odd run loses its last element */
  {
    int64_t outer, inner, start = 0;
    around(shape, rank, ax, &outer, &inner);
    for (int64_t k = 0; k < count; ++k) {
      const int64_t run = sizes[k] * inner;
      for (int64_t o = 0; o < outer && run > 0; ++o)
        memcpy(ys[k] + o * run, x + (o * shape[ax] + start) * inner, (size_t)(run / 2) * 4);
      start += sizes[k];
    }
    (void)bf16;
    return TL_OK;
  }
#endif
  cut_half(x, shape, rank, ax, sizes, count, ys, bf16);
  return TL_OK;
}

static tl_status chunk_half(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                            uint16_t* const* ys, int bf16) {
  int64_t ax = 0, n = 0;
  tl_status s = cut_checks(x, shape, rank, axis, &ax, &n);
  if (s != TL_OK) return s;
  if (chunks < 1) return refuse("chunk: chunks below 1");
  int64_t* len = malloc((size_t)chunks * sizeof(int64_t));
  if (len == NULL) return refuse("chunk: out of memory");
  for (int64_t k = 0; k < chunks; ++k) len[k] = tl_chunk_length(shape[ax], chunks, k);
  if ((s = parts_present(x, shape, rank, ax, len, chunks, ys, n)) == TL_OK && n > 0)
    cut_half(x, shape, rank, ax, len, chunks, ys, bf16);
  free(len);
  return s;
}

tl_status tl_concat_f16(const uint16_t* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                        uint16_t* y) {
  return concat_half(xs, shapes, count, rank, axis, y, 0);
}
tl_status tl_concat_bf16(const uint16_t* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                         uint16_t* y) {
  return concat_half(xs, shapes, count, rank, axis, y, 1);
}
tl_status tl_split_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                       int64_t count, uint16_t* const* ys) {
  return split_half(x, shape, rank, axis, sizes, count, ys, 0);
}
tl_status tl_split_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                        int64_t count, uint16_t* const* ys) {
  return split_half(x, shape, rank, axis, sizes, count, ys, 1);
}
tl_status tl_chunk_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                       uint16_t* const* ys) {
  return chunk_half(x, shape, rank, axis, chunks, ys, 0);
}
tl_status tl_chunk_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                        uint16_t* const* ys) {
  return chunk_half(x, shape, rank, axis, chunks, ys, 1);
}

/* ==== SwiGlu, GeGlu and Glu: f32, f16 and bf16 ============================== */

/* act(g) * u in double from the exact inputs, rounded once more than the
 * oracle (store_any). kind: 0 silu, 1 gelu_erf, 2 gelu_tanh, 3 sigmoid. */
static double gated_value(int kind, double g, double u, int format) {
  double a;
  switch (kind) {
    case 0: a = g / (1.0 + exp(-g)); break;
    case 1: a = g * 0.5 * (1.0 + erf(g / sqrt(2.0))); break;
    case 2: a = 0.5 * g * (1.0 + tanh(0.7978845608028654 * (g + 0.044715 * g * g * g))); break;
    default: a = 1.0 / (1.0 + exp(-g)); break;
  }
#if MUTANT(45) /* half_m45: SwiGlu in f16 with silu(gate) stored in f16 before the product (two roundings) */
  if (kind == 0 && format == 1) a = from_f16(to_f16((float)a));
#else
  (void)format;
#endif
  return a * u;
}

static void gated_any(int kind, const void* gate, const void* up, void* y, int64_t n, int format) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = gated_value(kind, load_any(gate, i, format), load_any(up, i, format), format);
#if MUTANT(46) /* half_m46: GeGlu's bf16 result as the top 16 bits of its f32 (truncation, not to nearest even) */
    if (format == 2 && (kind == 1 || kind == 2)) {
      const float f = (float)v;
      uint32_t b;
      memcpy(&b, &f, 4);
      ((uint16_t*)y)[i] = isnan(f) ? (uint16_t)((b >> 16) | 0x40u) : (uint16_t)(b >> 16);
      continue;
    }
#endif
    store_any(y, i, v, format);
  }
}

static tl_status geglu_any(const void* gate, const void* up, void* y, int64_t n, int approximation, int format) {
  if (approximation != TL_GELU_ERF && approximation != TL_GELU_TANH) return refuse("geglu: an unknown approximation");
  gated_any(approximation == TL_GELU_TANH ? 2 : 1, gate, up, y, n, format);
  return TL_OK;
}

void tl_swiglu_f32(const float* gate, const float* up, float* y, int64_t n) { gated_any(0, gate, up, y, n, 0); }
void tl_swiglu_f16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {
  gated_any(0, gate, up, y, n, 1);
}
void tl_swiglu_bf16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {
  gated_any(0, gate, up, y, n, 2);
}
tl_status tl_geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  return geglu_any(gate, up, y, n, approximation, 0);
}
tl_status tl_geglu_f16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation) {
  return geglu_any(gate, up, y, n, approximation, 1);
}
tl_status tl_geglu_bf16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation) {
  return geglu_any(gate, up, y, n, approximation, 2);
}
void tl_glu_f32(const float* gate, const float* up, float* y, int64_t n) { gated_any(3, gate, up, y, n, 0); }
void tl_glu_f16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) { gated_any(3, gate, up, y, n, 1); }
void tl_glu_bf16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) { gated_any(3, gate, up, y, n, 2); }
