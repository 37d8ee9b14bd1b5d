// The elementwise activations and the gated FFN middles of
// tinyllm/activations.h: one vector function per op, mapped over the arrays
// four vectors at a time (the exp and division chains are long, and four
// independent ones keep the pipelines full), then one at a time, then a
// partial vector whose lanes past n are neither read nor written.

#if defined(KONFORM_SIMD_ACTIVATIONS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_ACTIVATIONS_INL_H_
#undef KONFORM_SIMD_ACTIVATIONS_INL_H_
#else
#define KONFORM_SIMD_ACTIVATIONS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "impl/simd/activation_math-inl.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
// In `act`, like activation_math-inl.h, away from other families' helpers.
namespace konform::simd::HWY_NAMESPACE::act {
namespace hn = hwy::HWY_NAMESPACE;

// y[i] = f(x[i]). Each group of vectors is loaded before it is stored, so
// y == x works.
template <class F>
HWY_INLINE void MapUnary(const float* x, float* y, int64_t n, const F& f) {
  if (n <= 0) return;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d), count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + 4 * N <= count; i += 4 * N) {
    const auto y0 = f(d, hn::LoadU(d, x + i));
    const auto y1 = f(d, hn::LoadU(d, x + i + N));
    const auto y2 = f(d, hn::LoadU(d, x + i + 2 * N));
    const auto y3 = f(d, hn::LoadU(d, x + i + 3 * N));
    hn::StoreU(y0, d, y + i);
    hn::StoreU(y1, d, y + i + N);
    hn::StoreU(y2, d, y + i + 2 * N);
    hn::StoreU(y3, d, y + i + 3 * N);
  }
  for (; i + N <= count; i += N) hn::StoreU(f(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < count) StoreHead(f(d, LoadHead(d, x + i, count - i)), d, y + i, count - i);
}

// y[i] = f(gate[i], up[i]); y may be gate or up.
template <class F>
HWY_INLINE void MapGated(const float* gate, const float* up, float* y, int64_t n, const F& f) {
  if (n <= 0) return;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d), count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + 4 * N <= count; i += 4 * N) {
    const auto y0 = f(d, hn::LoadU(d, gate + i), hn::LoadU(d, up + i));
    const auto y1 = f(d, hn::LoadU(d, gate + i + N), hn::LoadU(d, up + i + N));
    const auto y2 = f(d, hn::LoadU(d, gate + i + 2 * N), hn::LoadU(d, up + i + 2 * N));
    const auto y3 = f(d, hn::LoadU(d, gate + i + 3 * N), hn::LoadU(d, up + i + 3 * N));
    hn::StoreU(y0, d, y + i);
    hn::StoreU(y1, d, y + i + N);
    hn::StoreU(y2, d, y + i + 2 * N);
    hn::StoreU(y3, d, y + i + 3 * N);
  }
  for (; i + N <= count; i += N) hn::StoreU(f(d, hn::LoadU(d, gate + i), hn::LoadU(d, up + i)), d, y + i);
  if (i < count) {
    const size_t m = count - i;
    StoreHead(f(d, LoadHead(d, gate + i, m), LoadHead(d, up + i, m)), d, y + i, m);
  }
}

// ---------------------------------------------------------------- one vector

// x * sigmoid(x): the sigmoid's two-sided form keeps silu accurate where the
// spec's x / (1 + e^-x) flushes to -0 (x < -88.72).
template <class D>
HWY_INLINE hn::Vec<D> SiluVec(D d, hn::Vec<D> x) {
  return hn::Mul(x, Sigmoid(d, x));
}

// x * Phi(x), Phi the normal CDF: the spec's x * 0.5 * (1 + erf(x / sqrt 2)).
template <class D>
HWY_INLINE hn::Vec<D> GeluErfVec(D d, hn::Vec<D> x) {
  return hn::Mul(x, NormalCdf(d, x));
}

// 0.5 x (1 + tanh(a)) = x * sigmoid(2a) with 2a = x (k0 + k1 x^2),
// k0 = 2 sqrt(2/pi), k1 = 0.044715 k0: one exp and no cancellation at
// negative x, where 1 + tanh(a) would cancel. x^2 = inf gives 2a = +-inf and
// the formula's own limits (x for +inf, NaN for -inf as -inf * 0).
template <class D>
HWY_INLINE hn::Vec<D> GeluTanhVec(D d, hn::Vec<D> x) {
  const auto inner = hn::MulAdd(hn::Set(d, 0.07135481387376785f), hn::Mul(x, x), hn::Set(d, 1.5957691669464111f));
  return hn::Mul(x, Sigmoid(d, hn::Mul(x, inner)));
}

// +0 for x <= 0 (-0 included), x otherwise; NaN compares false and passes.
template <class D>
HWY_INLINE hn::Vec<D> ReluVec(D d, hn::Vec<D> x) {
  return hn::IfThenZeroElse(hn::Le(x, hn::Zero(d)), x);
}

// x for x > 0, slope * x otherwise (NaN: slope * NaN).
template <class D>
HWY_INLINE hn::Vec<D> LeakyVec(D d, hn::Vec<D> x, hn::Vec<D> slope) {
  return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Mul(slope, x));
}

// ---------------------------------------------------------------- kernels

inline void SiluF32(const float* x, float* y, int64_t n) {
  MapUnary(x, y, n, [](auto d, auto v) HWY_ATTR { return SiluVec(d, v); });
}

inline void GeluErfF32(const float* x, float* y, int64_t n) {
  MapUnary(x, y, n, [](auto d, auto v) HWY_ATTR { return GeluErfVec(d, v); });
}

inline void GeluTanhF32(const float* x, float* y, int64_t n) {
  MapUnary(x, y, n, [](auto d, auto v) HWY_ATTR { return GeluTanhVec(d, v); });
}

inline void ReluF32(const float* x, float* y, int64_t n) {
  MapUnary(x, y, n, [](auto d, auto v) HWY_ATTR { return ReluVec(d, v); });
}

inline void LeakyReluF32(const float* x, float* y, int64_t n, float alpha) {
  MapUnary(x, y, n, [alpha](auto d, auto v) HWY_ATTR { return LeakyVec(d, v, hn::Set(d, alpha)); });
}

inline void SigmoidF32(const float* x, float* y, int64_t n) {
  MapUnary(x, y, n, [](auto d, auto v) HWY_ATTR { return Sigmoid(d, v); });
}

inline void TanhF32(const float* x, float* y, int64_t n) {
  MapUnary(x, y, n, [](auto d, auto v) HWY_ATTR { return TanhF(d, v); });
}

// [outer, channels, inner]. Channels-last rows (inner == 1) take the slopes
// a vector at a time; otherwise each channel's run of `inner` elements
// shares one broadcast slope.
inline void PReluF32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  if (outer <= 0 || channels <= 0 || inner <= 0) return;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  if (inner == 1) {
    const size_t C = static_cast<size_t>(channels);
    for (int64_t o = 0; o < outer; ++o) {
      const float* xr = x + o * channels;
      float* yr = y + o * channels;
      size_t c = 0;
      for (; c + N <= C; c += N) hn::StoreU(LeakyVec(d, hn::LoadU(d, xr + c), hn::LoadU(d, slope + c)), d, yr + c);
      if (c < C) {
        const size_t m = C - c;
        StoreHead(LeakyVec(d, LoadHead(d, xr + c, m), LoadHead(d, slope + c, m)), d, yr + c, m);
      }
    }
    return;
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t base = (o * channels + c) * inner;
      const float s = slope[c];
      MapUnary(x + base, y + base, inner, [s](auto dd, auto v) HWY_ATTR { return LeakyVec(dd, v, hn::Set(dd, s)); });
    }
}

// silu(gate) * up, the product taken after silu so that it overflows only
// where the result does.
inline void SwiGluF32(const float* gate, const float* up, float* y, int64_t n) {
  MapGated(gate, up, y, n, [](auto d, auto g, auto u) HWY_ATTR { return hn::Mul(SiluVec(d, g), u); });
}

// gelu(gate) * up; approximation checked by the caller (0 erf, 1 tanh).
inline void GeGluF32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  if (approximation == 1) {
    MapGated(gate, up, y, n, [](auto d, auto g, auto u) HWY_ATTR { return hn::Mul(GeluTanhVec(d, g), u); });
  } else {
    MapGated(gate, up, y, n, [](auto d, auto g, auto u) HWY_ATTR { return hn::Mul(GeluErfVec(d, g), u); });
  }
}

inline void GluF32(const float* gate, const float* up, float* y, int64_t n) {
  MapGated(gate, up, y, n, [](auto d, auto g, auto u) HWY_ATTR { return hn::Mul(Sigmoid(d, g), u); });
}

}  // namespace konform::simd::HWY_NAMESPACE::act
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_ACTIVATIONS_INL_H_
