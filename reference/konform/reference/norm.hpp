// The normalization ops of tinyllm/norm.h, written from spec/operations.txt
// section 2 (and FusedSkipNorm of section 10).
//
// One source on the scalar type T, as elementwise.hpp: double is the oracle,
// float is the `scalar` backend. Arguments are assumed valid here (the ABI's
// validation lives in the backends and in the harness's declarations).
//
// Every statistic is the textbook two-pass one: mean = sum(x) / n, then
// var = sum((x - mean)^2) / n, each sum pairwise in a fixed order, so that a
// row's result depends on that row alone.
#pragma once

#include <cmath>
#include <cstdint>

#include "konform/reference/elementwise.hpp"
#include "konform/reference/pairwise_sum.hpp"

namespace konform::reference {

template <typename T>
struct Moments {
  T mean;
  T var;  // population variance: divided by n, not n - 1
};

// Mean and variance of x[0, n), n >= 1, two passes.
template <typename T>
Moments<T> moments(const float* x, int64_t n) {
  const T mean = pairwise_sum<T>(0, n, [&](int64_t i) { return T(x[i]); }) / T(n);
  const T var = pairwise_sum<T>(0, n,
                                [&](int64_t i) {
                                  const T c = T(x[i]) - mean;
                                  return c * c;
                                }) /
                T(n);
  return {mean, var};
}

// 1 / sqrt(var + eps): eps inside the root (spec §2, "Critical").
template <typename T>
T inverse_std(T var, float eps) {
  using std::sqrt;
  return T(1) / sqrt(var + T(eps));
}

// RmsNorm over the last dim of x[rows, d]: the elementwise kernel's formula.
template <typename T>
void rms_norm(const float* x, const float* g, T* y, int64_t rows, int64_t d, float eps) {
  rmsnorm<T>(x, g, y, rows, d, eps);
}

// Normalizes x[0, n) with its own moments, then y = norm * gain(i) + bias(i).
template <typename T, typename Gain, typename Bias>
void normalize(const float* x, T* y, int64_t n, float eps, const Gain& gain, const Bias& bias) {
  const Moments<T> m = moments<T>(x, n);
  const T inv = inverse_std<T>(m.var, eps);
  for (int64_t i = 0; i < n; ++i) y[i] = (T(x[i]) - m.mean) * inv * gain(i) + bias(i);
}

// LayerNorm over the last dim of x[rows, d] with gain g[d] and bias b[d].
template <typename T>
void layer_norm(const float* x, const float* g, const float* b, T* y, int64_t rows, int64_t d, float eps) {
  for (int64_t r = 0; r < rows; ++r)
    normalize<T>(
        x + r * d, y + r * d, d, eps, [&](int64_t i) { return T(g[i]); }, [&](int64_t i) { return T(b[i]); });
}

// BatchNorm of x[n, c, s] with the running statistics mean[c], var[c].
template <typename T>
void batch_norm(const float* x, const float* mean, const float* var, const float* g, const float* b, T* y, int64_t n,
                int64_t c, int64_t s, float eps) {
  for (int64_t k = 0; k < n * c; ++k) {
    const int64_t ch = k % c;
    const T inv = inverse_std<T>(T(var[ch]), eps);
    for (int64_t i = k * s; i < (k + 1) * s; ++i) y[i] = (T(x[i]) - T(mean[ch])) * inv * T(g[ch]) + T(b[ch]);
  }
}

// GroupNorm of x[n, c, s]: groups of c / groups consecutive channels, whose
// elements are consecutive in memory; gain and bias per channel.
template <typename T>
void group_norm(const float* x, const float* g, const float* b, T* y, int64_t n, int64_t c, int64_t s, int64_t groups,
                float eps) {
  const int64_t per_group = c / groups * s;
  for (int64_t k = 0; k < n * groups; ++k) {
    const int64_t first_channel = (k % groups) * (c / groups);
    normalize<T>(
        x + k * per_group, y + k * per_group, per_group, eps, [&](int64_t i) { return T(g[first_channel + i / s]); },
        [&](int64_t i) { return T(b[first_channel + i / s]); });
  }
}

// InstanceNorm: one group per channel.
template <typename T>
void instance_norm(const float* x, const float* g, const float* b, T* y, int64_t n, int64_t c, int64_t s, float eps) {
  group_norm<T>(x, g, b, y, n, c, s, c, eps);
}

// AdaLN of x[batch, tokens, d]: every row of sample k is normalized without
// affine, then scaled by (1 + scale[k]) and shifted by shift[k].
template <typename T>
void ada_ln(const float* x, const float* scale, const float* shift, T* y, int64_t batch, int64_t tokens, int64_t d,
            float eps) {
  for (int64_t r = 0; r < batch * tokens; ++r) {
    const float* sc = scale + (r / tokens) * d;
    const float* sh = shift + (r / tokens) * d;
    normalize<T>(
        x + r * d, y + r * d, d, eps, [&](int64_t i) { return T(1) + T(sc[i]); }, [&](int64_t i) { return T(sh[i]); });
  }
}

// The gated residual of AdaLN-Zero as the unfused Mul then Add compute it:
// each rounded to float. Formed in double, where the product of two floats
// is exact and the sum's double rounding to float is innocuous (53 >= 2*24+2),
// so this is the correctly rounded float result whatever T is.
inline float gated_residual(float x, float gate, float r) {
  const float product = static_cast<float>(static_cast<double>(gate) * static_cast<double>(r));
  return static_cast<float>(static_cast<double>(x) + static_cast<double>(product));
}

// The same sum rounded once, the product kept exact: one fused multiply-add,
// fl(x + gate * r), which the spec's x + residual * gate allows as well (GCC
// contracts x + g * r into vfmadd at -O2 in its default GNU mode). std::fma
// on floats is correctly rounded.
inline float gated_residual_fused(float x, float gate, float r) { return std::fma(gate, r, x); }

// AdaLN-Zero: h = x + gate * r (in float, Mul then Add as above; the oracle
// also accepts gated_residual_fused), y = AdaLN(h).
template <typename T>
void ada_ln_zero(const float* x, const float* r, const float* gate, const float* scale, const float* shift, float* h,
                 T* y, int64_t batch, int64_t tokens, int64_t d, float eps) {
  for (int64_t k = 0; k < batch * tokens * d; ++k) {
    const int64_t sample = k / (tokens * d), i = k % d;
    h[k] = gated_residual(x[k], gate[sample * d + i], r[k]);
  }
  ada_ln<T>(h, scale, shift, y, batch, tokens, d, eps);
}

// The residual sum of FusedSkipNorm: one float addition (exact in double,
// then rounded once).
inline float skip_sum(float x, float skip) {
  return static_cast<float>(static_cast<double>(x) + static_cast<double>(skip));
}

// FusedSkipNorm: sum = x + skip in float, y = RmsNorm(sum).
template <typename T>
void fused_skip_norm(const float* x, const float* skip, const float* g, float* sum, T* y, int64_t rows, int64_t d,
                     float eps) {
  for (int64_t k = 0; k < rows * d; ++k) sum[k] = skip_sum(x[k], skip[k]);
  rms_norm<T>(sum, g, y, rows, d, eps);
}

}  // namespace konform::reference
