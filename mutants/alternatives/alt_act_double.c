/* alt_act_double.c: the functions of tinyllm/activations.h computed in double
 * and rounded once, in other forms than the base's where the math allows
 * (silu and the gated products from x e^x / (1 + e^x) on the negative side,
 * tanh from expm1, softmax normalized by a division). A correct plugin: a
 * failure here is a false alarm of the harness, as serious as a surviving
 * mutant. No tl_last_error: the properties must accept a plugin without it.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "tinyllm/activations.h"

static double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + exp(-x));
  const double e = exp(x);
  return e / (1.0 + e);
}

static double gelu_erf(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }

static double gelu_tanh(double x) {
  const double a = sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x);
  return x * sigmoid(2.0 * a); /* 0.5 (1 + tanh(a)) = sigmoid(2a) */
}

static double tanh_expm1(double x) {
  if (isnan(x)) return x;
  const double t = fabs(x);
  if (t > 20.0) return copysign(1.0, x);
  const double e = expm1(2.0 * t);
  return copysign(e / (e + 2.0), x);
}

void tl_silu_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float)((double)x[i] * sigmoid(x[i]));
}

void tl_gelu_erf_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float)gelu_erf(x[i]);
}

void tl_gelu_tanh_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float)gelu_tanh(x[i]);
}

void tl_relu_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = isnan(x[i]) ? x[i] : fmaxf(x[i], 0.0f) + 0.0f; /* -0 -> +0 */
}

void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : (float)((double)alpha * x[i]);
}

void tl_prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  for (int64_t k = 0; k < outer * channels * inner; ++k) {
    const int64_t c = (k / inner) % channels;
    y[k] = x[k] > 0 ? x[k] : (float)((double)slope[c] * x[k]);
  }
}

void tl_sigmoid_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float)sigmoid(x[i]);
}

void tl_tanh_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float)tanh_expm1(x[i]);
}

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
      double m = -INFINITY, sum = 0;
      for (int64_t l = 0; l < length; ++l) m = isnan(xl[l * inner]) || isnan(m) ? NAN : fmax(m, xl[l * inner]);
      for (int64_t l = 0; l < length; ++l) sum += exp((double)xl[l * inner] - m);
      for (int64_t l = 0; l < length; ++l) yl[l * inner] = (float)(exp((double)xl[l * inner] - m) / sum);
    }
  return TL_OK;
}

void tl_swiglu_f32(const float* gate, const float* up, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float)((double)gate[i] * sigmoid(gate[i]) * up[i]);
}

tl_status tl_geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  if (approximation != TL_GELU_ERF && approximation != TL_GELU_TANH) return TL_ERR_INVALID_ARGUMENT;
  for (int64_t i = 0; i < n; ++i)
    y[i] = (float)((approximation == TL_GELU_ERF ? gelu_erf(gate[i]) : gelu_tanh(gate[i])) * up[i]);
  return TL_OK;
}

void tl_glu_f32(const float* gate, const float* up, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float)(sigmoid(gate[i]) * up[i]);
}
