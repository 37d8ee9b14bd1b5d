// The six kernels of tinyllm/elementwise.h, written from the spec's formulas.
//
// One source on the scalar type T: double is the oracle, a 50-digit
// Boost.Multiprecision float checks the double one, and float is the CPU
// reference in f32 (the `scalar` backend). Inputs are always the float tensors
// of the ABI; T is the precision every step is carried out in.
#pragma once

#include <cmath>
#include <cstdint>

#include "konform/reference/pairwise_sum.hpp"

namespace konform::reference {

// y = x / sqrt(mean(x^2) + eps) * w per row; eps inside the root (§2.1).
template <typename T>
void rmsnorm(const float* x, const float* w, T* y, int64_t rows, int64_t d, float eps) {
  using std::sqrt;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    const T sum_sq = pairwise_sum<T>(0, d, [&](int64_t i) { return T(xr[i]) * T(xr[i]); });
    const T inv = T(1) / sqrt(sum_sq / T(d) + T(eps));
    for (int64_t i = 0; i < d; ++i) y[r * d + i] = T(xr[i]) * inv * T(w[i]);
  }
}

// The angle of the contract: formed in double, rounded to float (§2.2).
inline float rope_angle(int32_t pos, float inv_freq) {
  return static_cast<float>(static_cast<double>(pos) * static_cast<double>(inv_freq));
}

// Index of the two members of pair i within a head, for layout 0 (half) or 1
// (interleaved).
inline void rope_pair(int layout, int64_t d_rot, int64_t i, int64_t* first, int64_t* second) {
  *first = layout == 0 ? i : 2 * i;
  *second = layout == 0 ? i + d_rot / 2 : 2 * i + 1;
}

// Rotates the first d_rot entries of every head of x[T, H, D] into y; the
// rest of each head is copied. x and y may not overlap (y == x is the ABI's
// in-place call, which the oracle models by reading x and writing y).
template <typename T>
void rope(const float* x, T* y, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D, int64_t d_rot,
          const float* inv_freq, float attn_scaling, int layout) {
  using std::cos;
  using std::sin;
  for (int64_t k = 0; k < tokens * heads * D; ++k) y[k] = T(x[k]);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t i = 0; i < d_rot / 2; ++i) {
      const T theta = T(rope_angle(pos[t], inv_freq[i]));
      const T c = cos(theta), s = sin(theta), mu = T(attn_scaling);
      int64_t ia, ib;
      rope_pair(layout, d_rot, i, &ia, &ib);
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t base = (t * heads + h) * D;
        const T a = T(x[base + ia]), b = T(x[base + ib]);
        y[base + ia] = mu * (a * c - b * s);
        y[base + ib] = mu * (a * s + b * c);
      }
    }
  }
}

// silu(g) * u with silu(g) = g / (1 + e^-g): saturates to -0 for g -> -inf
// instead of inf/inf (§2.3).
template <typename T>
T silu(T g) {
  using std::exp;
  return g / (T(1) + exp(-g));
}

template <typename T>
void silu_mul(const float* gate, const float* up, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = silu(T(gate[i])) * T(up[i]);
}

template <typename T>
void embedding(const float* table, const int32_t* ids, T* out, int64_t n, int64_t d) {
  for (int64_t t = 0; t < n; ++t)
    for (int64_t i = 0; i < d; ++i) out[t * d + i] = T(table[int64_t(ids[t]) * d + i]);
}

template <typename T>
void add(const float* a, const float* b, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = T(a[i]) + T(b[i]);
}

// Strict > while scanning forward: the lowest index wins ties; NaN never
// compares greater and is skipped; -1 when there is no number (§2.4).
inline int32_t argmax(const float* x, int64_t n) {
  int32_t best = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) continue;
    if (best < 0 || x[i] > x[best]) best = static_cast<int32_t>(i);
  }
  return best;
}

}  // namespace konform::reference
