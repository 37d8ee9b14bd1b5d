/* act_base.c: the functions of tinyllm/activations.h in plain C11, and their
 * mutants (manifest ids act_mNN).
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is a correct plugin
 * (konform_plugin_act_base), written the way a C library would write it: the
 * spec's own f32 formulas where the tolerances admit them (silu as
 * x / (1 + e^-x), sigmoid as 1 / (1 + e^-x), the Gelus literally, libm's erff
 * and tanhf) and a double sum in softmax. With -DKONFORM_MUTANT=N exactly one
 * classic mistake is switched on; every `#if MUTANT(N)` is the whole of
 * mutant act_mNN, and mutants/manifest.tsv names the check that must catch it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "tinyllm/activations.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 31
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..31 (mutant act_m01..act_m31)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

static _Thread_local char last_error[160];

const char* tl_last_error(void) { return last_error; }

static tl_status refuse(const char* message) {
  snprintf(last_error, sizeof last_error, "%s", message);
  return TL_ERR_INVALID_ARGUMENT;
}

/* ---- one value ------------------------------------------------------------ */

static float sigmoid(float x) {
#if MUTANT(13) /* e^x / (1 + e^x) everywhere: inf / inf = NaN from x = 89 on */
  const float e = expf(x);
  return e / (1.0f + e);
#elif MUTANT(14) /* the negative side as 1 - sigmoid(-x): cancels to 0 below x = -17 */
  if (x < 0) return 1.0f - 1.0f / (1.0f + expf(x));
  return 1.0f / (1.0f + expf(-x));
#else
  return 1.0f / (1.0f + expf(-x));
#endif
}

static float silu(float x) {
#if MUTANT(1) /* x e^x / (1 + e^x): inf / inf = NaN from x = 89 on */
  const float e = expf(x);
  return x * e / (1.0f + e);
#elif MUTANT(2) /* the x forgotten: a sigmoid */
  return 1.0f / (1.0f + expf(-x));
#else
  return x / (1.0f + expf(-x));
#endif
}

static float gelu_tanh(float x) {
#if MUTANT(5) /* sqrt(2/pi) written as 2/pi */
  const float c = 0.63661977f;
#else
  const float c = 0.79788456f; /* sqrt(2/pi) */
#endif
#if MUTANT(6) /* the constant applied to x alone: tanh(c x + 0.044715 x^3) */
  return 0.5f * x * (1.0f + tanhf(c * x + 0.044715f * x * x * x));
#else
  return 0.5f * x * (1.0f + tanhf(c * (x + 0.044715f * x * x * x)));
#endif
}

static float gelu_erf(float x) {
#if MUTANT(3) /* the tanh approximation where erf is asked */
  return gelu_tanh(x);
#elif MUTANT(4) /* erf(x) instead of erf(x / sqrt(2)) */
  return x * 0.5f * (1.0f + erff(x));
#else
  return x * 0.5f * (1.0f + erff(x * 0.70710678f));
#endif
}

/* Mutants 29-31 flush normal values, which --flush-subnormals must not admit. */
static inline float flushed_below_2_100(float v) { return fabsf(v) < 0x1p-100f ? copysignf(0.0f, v) : v; }

static float leaky(float x, float alpha) {
#if MUTANT(31) /* inputs below 2^-100 read as zero (DAZ past the subnormals) */
  x = flushed_below_2_100(x);
#endif
#if MUTANT(9) /* the slope applied to the positives */
  return x > 0 ? alpha * x : x;
#elif MUTANT(10) /* max(x, alpha x): right only for 0 <= alpha <= 1 */
  return fmaxf(x, alpha * x);
#else
  return x > 0 ? x : alpha * x;
#endif
}

/* ---- elementwise ---------------------------------------------------------- */

void tl_silu_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = silu(x[i]);
}

void tl_gelu_erf_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = gelu_erf(x[i]);
}

void tl_gelu_tanh_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = gelu_tanh(x[i]);
}

void tl_relu_f32(const float* x, float* y, int64_t n) {
#if MUTANT(8) /* a vector loop of 8 with its tail left unwritten */
  n -= n % 8;
#endif
  for (int64_t i = 0; i < n; ++i) {
#if MUTANT(7) /* x > 0 ? x : 0 turns NaN into 0 */
    y[i] = x[i] > 0 ? x[i] : 0.0f;
#else
    y[i] = x[i] > 0 || isnan(x[i]) ? x[i] : 0.0f;
#endif
  }
}

void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) y[i] = leaky(x[i], alpha);
}

void tl_prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * channels + c) * inner + i;
#if MUTANT(11) /* channels-last indexing on NCHW data: slope[k % C] */
        y[k] = leaky(x[k], slope[k % channels]);
#elif MUTANT(12) /* one shared slope */
        y[k] = leaky(x[k], slope[0]);
#else
        y[k] = leaky(x[k], slope[c]);
#endif
      }
}

void tl_sigmoid_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = sigmoid(x[i]);
}

void tl_tanh_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
#if MUTANT(15) /* (e^x - e^-x) / (e^x + e^-x): inf / inf = NaN from |x| = 89 on */
    const float p = expf(x[i]), q = expf(-x[i]);
    y[i] = (p - q) / (p + q);
#elif MUTANT(16) /* 2 sigmoid(2x) - 1: cancels for small |x| */
    y[i] = 2.0f / (1.0f + expf(-2.0f * x[i])) - 1.0f;
#else
    y[i] = tanhf(x[i]);
#endif
  }
}

/* ---- softmax -------------------------------------------------------------- */

tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  if (rank < 1 || rank > 4) return refuse("softmax: rank must be 1..4");
  if (shape == NULL) return refuse("softmax: shape is NULL");
#if MUTANT(27) /* off by one: axis == rank accepted (and shape[rank] read) */
  if (axis < -rank || axis > rank) return refuse("softmax: axis out of range");
#else
  if (axis < -rank || axis >= rank) return refuse("softmax: axis out of range");
#endif
  const int a = axis < 0 ? axis + rank : axis;
  int64_t outer = 1, length = 1, inner = 1, nonzero = 1;
  for (int k = 0; k < rank; ++k) {
#if MUTANT(20) /* a negative dim not refused: taken as an empty tensor, TL_OK */
    if (shape[k] < 0) return TL_OK;
#else
    if (shape[k] < 0) return refuse("softmax: negative dim");
#endif
    if (shape[k] > 0) {
      if (nonzero > INT64_MAX / shape[k]) return refuse("softmax: dims overflow int64_t");
      nonzero *= shape[k];
    }
  }
  for (int k = 0; k <= a; ++k) {
    if (k < a) outer *= shape[k];
    else length = shape[k];
  }
  for (int k = a + 1; k < rank; ++k) inner *= shape[k];
#if MUTANT(18) /* always along the last axis, whatever axis says */
  length = shape[rank - 1];
  inner = 1;
  outer = 1;
  for (int k = 0; k < rank - 1; ++k) outer *= shape[k];
#endif
#if MUTANT(19) /* one sum for the whole call instead of one per line */
  double total = 0.0;
#endif
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t base = o * length * inner + j;
      float m = -INFINITY;
      int nan = 0;
      for (int64_t l = 0; l < length; ++l) {
        const float v = x[base + l * inner];
        if (isnan(v)) nan = 1;
        else if (v > m) m = v;
      }
      if (nan) m = NAN;
#if !MUTANT(19)
      double total = 0.0;
#endif
      for (int64_t l = 0; l < length; ++l) {
#if MUTANT(17) /* no max subtraction: e^x overflows for x > 88.7 */
        const float e = expf(x[base + l * inner]);
#else
        const float e = expf(x[base + l * inner] - m);
#endif
        y[base + l * inner] = e;
#if MUTANT(28) /* the sum accumulated in half precision (11 significant bits): each addition errs by up to \
                * 2^-12 of the sum, thousands of u, beyond the bound of any summation order */
        {
          int ex;
          const double m11 = frexp(total + (double)e, &ex);
          total = ldexp(nearbyint(ldexp(m11, 11)), ex - 11);
        }
#else
        total += (double)e;
#endif
      }
#if !MUTANT(19)
      const float inv = (float)(1.0 / total);
      for (int64_t l = 0; l < length; ++l) y[base + l * inner] *= inv;
#endif
#if MUTANT(30) /* results below 2^-100 flushed to zero (FTZ past the subnormals) */
      for (int64_t l = 0; l < length; ++l) y[base + l * inner] = flushed_below_2_100(y[base + l * inner]);
#endif
    }
#if MUTANT(19)
  const float inv = (float)(1.0 / total);
  for (int64_t k = 0; k < outer * length * inner; ++k) y[k] *= inv;
#endif
  return TL_OK;
}

/* ---- gated ---------------------------------------------------------------- */

void tl_swiglu_f32(const float* gate, const float* up, float* y, int64_t n) {
#if MUTANT(22) /* a vector loop of 8 with its tail left unwritten */
  n -= n % 8;
#endif
  for (int64_t i = 0; i < n; ++i) {
#if MUTANT(21) /* silu of up, times gate */
    y[i] = silu(up[i]) * gate[i];
#elif MUTANT(29) /* silu(gate) below 2^-100 flushed before the product (FTZ of a normal intermediate) */
    y[i] = flushed_below_2_100(silu(gate[i])) * up[i];
#else
    y[i] = silu(gate[i]) * up[i];
#endif
  }
}

tl_status tl_geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
#if !MUTANT(24) /* (mutant 24: no check, anything but 0 taken as tanh) */
  if (approximation != TL_GELU_ERF && approximation != TL_GELU_TANH)
    return refuse("geglu: approximation must be TL_GELU_ERF or TL_GELU_TANH");
#endif
  for (int64_t i = 0; i < n; ++i) {
#if MUTANT(23) /* the approximation ignored: always erf */
    (void)approximation;
    const float g = gelu_erf(gate[i]);
#else
    const float g = approximation == TL_GELU_ERF ? gelu_erf(gate[i]) : gelu_tanh(gate[i]);
#endif
    y[i] = g * up[i];
  }
  return TL_OK;
}

void tl_glu_f32(const float* gate, const float* up, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
#if MUTANT(25) /* gate and up swapped */
    y[i] = sigmoid(up[i]) * gate[i];
#elif MUTANT(26) /* y written before up is read: wrong when y == up */
    y[i] = sigmoid(gate[i]);
    y[i] *= up[i];
#else
    y[i] = sigmoid(gate[i]) * up[i];
#endif
  }
}
