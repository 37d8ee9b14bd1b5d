/* half_base.c: the f16 and bf16 activations of tinyllm/activations.h and the
 * casts of tinyllm/tensor.h in plain C11, and their mutants (manifest ids
 * half_mNN).
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is a correct plugin
 * (konform_plugin_half_base) of those ops and their f32 twins, written apart
 * from the in-tree kernels: f16
 * through the compiler's _Float16 conversions, bf16 rounded half up with the
 * ties fixed to even afterwards, and the spec's own f32 formulas (silu as
 * x / (1 + e^-x), sigmoid as 1 / (1 + e^-x), libm's erff and tanhf). With
 * -DKONFORM_MUTANT=N exactly one mistake of half precision is switched on;
 * every `#if MUTANT(N)` is the whole of mutant half_mNN, and
 * mutants/manifest.tsv names the check that must catch it.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tinyllm/activations.h"
#include "tinyllm/tensor.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 6
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..6 (mutant half_m01..half_m06)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

const char* tl_last_error(void) { return ""; }

/* ---- the two formats -------------------------------------------------------- */

static float from_f16(uint16_t h) {
  _Float16 v;
  memcpy(&v, &h, 2);
  return (float)v;
}

#if MUTANT(1) || MUTANT(6)
/* The f32 bits cut to f16: truncation, the mistake of mutants 1 and 6. */
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
#if MUTANT(6) /* but a scalar tail (the last n % 8) that truncates: results depend on n */
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
HALF_UNARY(relu, relu)
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
