// The activations of spec/operations.txt section 4 and the gated middle of
// its FFNs (SwiGlu, GeGlu, Glu), written from the spec's formulas.
//
// One source on the scalar type T, like elementwise.hpp: double is the
// oracle, a 50-digit Boost.Multiprecision float checks it, float is the
// `scalar` backend. Inputs are the ABI's float tensors; T is the precision
// every step is carried out in. Where the spec gives two equal forms, the one
// that stays accurate in f32 is written (sigmoid and silu on the two sides of
// 0); where it gives one, it is written as given (the Gelus).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "konform/reference/pairwise_sum.hpp"

namespace konform::reference::act {

// ---------------------------------------------------------------- one value

// 1 / (1 + e^-x) for x >= 0; e^x / (1 + e^x) below, so neither e^x
// overflows (x = 100 would give inf / inf) nor 1 - tiny cancels, and the
// tail down to the smallest subnormal is kept.
template <typename T>
T sigmoid(T x) {
  using std::exp;
  if (x >= T(0)) return T(1) / (T(1) + exp(-x));
  const T e = exp(x);  // NaN lands here and stays NaN
  return e / (T(1) + e);
}

// Silu(x) = x * sigmoid(x) (spec: "= x / (1 + exp(-x))", the same value; this
// form does not flush to -0 where e^-x overflows in f32).
template <typename T>
T silu(T x) {
  return x * sigmoid(x);
}

// Gelu_erf(x) = x * 0.5 * (1 + erf(x / sqrt(2))), as the spec writes it.
template <typename T>
T gelu_erf(T x) {
  using std::erf;
  using std::sqrt;
  return x * T(0.5) * (T(1) + erf(x / sqrt(T(2))));
}

// sqrt(2 / pi) * (x + 0.044715 x^3), the argument of Gelu_tanh's tanh (the
// spec's "sqrt(2/φ*)" is sqrt(2/pi), as in GPT-2's code and every library).
template <typename T>
T gelu_tanh_argument(T x) {
  using std::atan;
  using std::sqrt;
  const T pi = T(4) * atan(T(1));
  return sqrt(T(2) / pi) * (x + T(44715) / T(1000000) * x * x * x);
}

// Gelu_tanh(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
template <typename T>
T gelu_tanh(T x) {
  using std::tanh;
  return T(0.5) * x * (T(1) + tanh(gelu_tanh_argument(x)));
}

// x if x > 0, else +0; NaN passes through.
template <typename T>
T relu(T x) {
  if (x > T(0) || x != x) return x;
  return T(0);
}

// x if x > 0, else alpha * x (NaN: alpha * NaN = NaN).
template <typename T>
T leaky_relu(T x, T alpha) {
  return x > T(0) ? x : alpha * x;
}

// The other answer where the spec leaves the edge open: alpha = 0 at -inf,
// where alpha * x is 0 * -inf = NaN but a kernel that selects the slope's
// product only for alpha != 0 (or computes max(x, 0) + alpha min(x, 0) with
// the product skipped) gives 0. Elsewhere leaky_relu's value.
template <typename T>
T leaky_relu_selected(T x, T alpha) {
  return alpha == T(0) && x < T(0) && std::isinf(x) ? T(0) : leaky_relu(x, alpha);
}

// ---------------------------------------------------------------- arrays

template <typename T, typename F>
void map(const float* x, T* y, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(T(x[i]));
}

template <typename T>
void silu(const float* x, T* y, int64_t n) {
  map(x, y, n, [](T v) { return silu(v); });
}
template <typename T>
void gelu_erf(const float* x, T* y, int64_t n) {
  map(x, y, n, [](T v) { return gelu_erf(v); });
}
template <typename T>
void gelu_tanh(const float* x, T* y, int64_t n) {
  map(x, y, n, [](T v) { return gelu_tanh(v); });
}
template <typename T>
void relu(const float* x, T* y, int64_t n) {
  map(x, y, n, [](T v) { return relu(v); });
}
template <typename T>
void leaky_relu(const float* x, T* y, int64_t n, float alpha) {
  map(x, y, n, [alpha](T v) { return leaky_relu(v, T(alpha)); });
}
template <typename T>
void sigmoid(const float* x, T* y, int64_t n) {
  map(x, y, n, [](T v) { return sigmoid(v); });
}
template <typename T>
void tanh(const float* x, T* y, int64_t n) {
  using std::tanh;
  for (int64_t i = 0; i < n; ++i) y[i] = tanh(T(x[i]));
}

// x, y: [outer, channels, inner]; slope[c] for every element of channel c.
template <typename T>
void prelu(const float* x, const float* slope, T* y, int64_t outer, int64_t channels, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t base = (o * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) y[base + i] = leaky_relu(T(x[base + i]), T(slope[c]));
    }
}

// Softmax of x viewed as [outer, length, inner] along the middle axis: per
// line, m = max, e = exp(x - m), y = e / sum(e) with the sum pairwise. A NaN
// anywhere in a line makes m NaN and the whole line NaN, as +Inf does through
// inf - inf; a line of only -Inf gives -inf - -inf = NaN too. Each line is
// read before it is written, so y == x works.
template <typename T>
void softmax(const float* x, T* y, int64_t outer, int64_t length, int64_t inner) {
  using std::exp;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t base = o * length * inner + j;
      float m = -std::numeric_limits<float>::infinity();
      bool nan = false;
      for (int64_t l = 0; l < length; ++l) {
        const float v = x[base + l * inner];
        if (v != v) nan = true;
        else if (v > m) m = v;
      }
      const T mt = nan ? T(std::numeric_limits<float>::quiet_NaN()) : T(m);
      const auto e = [&](int64_t l) { return exp(T(x[base + l * inner]) - mt); };
      const T sum = pairwise_sum<T>(0, length, e);
      for (int64_t l = 0; l < length; ++l) y[base + l * inner] = e(l) / sum;
    }
}

// ---------------------------------------------------------------- gated

template <typename T>
void swiglu(const float* gate, const float* up, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = silu(T(gate[i])) * T(up[i]);
}

// approximation: 0 Gelu_erf, 1 Gelu_tanh (tl_gelu_approximation).
template <typename T>
void geglu(const float* gate, const float* up, T* y, int64_t n, int approximation) {
  for (int64_t i = 0; i < n; ++i) {
    const T g(gate[i]);
    y[i] = (approximation == 1 ? gelu_tanh(g) : gelu_erf(g)) * T(up[i]);
  }
}

template <typename T>
void glu(const float* gate, const float* up, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = sigmoid(T(gate[i])) * T(up[i]);
}

}  // namespace konform::reference::act
