// The elementwise activations and the gated FFN middles of
// tinyllm/activations.h: one function per op on a group of vectors, mapped
// over the arrays four vectors at a time (activation_math-inl.h says why),
// then one at a time, then a partial vector.

#if defined(KONFORM_SIMD_ACTIVATIONS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_ACTIVATIONS_INL_H_
#undef KONFORM_SIMD_ACTIVATIONS_INL_H_
#else
#define KONFORM_SIMD_ACTIVATIONS_INL_H_
#endif

#include <array>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "impl/simd/activation_math-inl.h"
#include "impl/simd/half-inl.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
// In `act`, like activation_math-inl.h, away from other families' helpers.
namespace konform::simd::HWY_NAMESPACE::act {
namespace hn = hwy::HWY_NAMESPACE;

// y[i] = f(x[i]), f mapping a group of K vectors (activation_math-inl.h):
// four at a time, then one, then a partial vector whose lanes past n are
// neither read nor written. Each group is loaded before it is stored, so
// y == x works.
template <class F>
HWY_INLINE void MapUnary(const float* x, float* y, int64_t n, const F& f) {
  if (n <= 0) return;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d), count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + 4 * N <= count; i += 4 * N) {
    Vecs<decltype(d), 4> v;
    for (size_t j = 0; j < 4; ++j) v[j] = hn::LoadU(d, x + i + j * N);
    v = f(d, v);
    for (size_t j = 0; j < 4; ++j) hn::StoreU(v[j], d, y + i + j * N);
  }
  for (; i + N <= count; i += N) hn::StoreU(f(d, Vecs<decltype(d), 1>{hn::LoadU(d, x + i)})[0], d, y + i);
  if (i < count) StoreHead(f(d, Vecs<decltype(d), 1>{LoadHead(d, x + i, count - i)})[0], d, y + i, count - i);
}

// y[i] = f(gate[i], up[i]) in groups as MapUnary; y may be gate or up.
template <class F>
HWY_INLINE void MapGated(const float* gate, const float* up, float* y, int64_t n, const F& f) {
  if (n <= 0) return;
  const hn::ScalableTag<float> d;
  using V1 = Vecs<decltype(d), 1>;
  const size_t N = hn::Lanes(d), count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + 4 * N <= count; i += 4 * N) {
    Vecs<decltype(d), 4> g, u;
    for (size_t j = 0; j < 4; ++j) g[j] = hn::LoadU(d, gate + i + j * N);
    for (size_t j = 0; j < 4; ++j) u[j] = hn::LoadU(d, up + i + j * N);
    g = f(d, g, u);
    for (size_t j = 0; j < 4; ++j) hn::StoreU(g[j], d, y + i + j * N);
  }
  for (; i + N <= count; i += N) hn::StoreU(f(d, V1{hn::LoadU(d, gate + i)}, V1{hn::LoadU(d, up + i)})[0], d, y + i);
  if (i < count) {
    const size_t m = count - i;
    StoreHead(f(d, V1{LoadHead(d, gate + i, m)}, V1{LoadHead(d, up + i, m)})[0], d, y + i, m);
  }
}

// ---------------------------------------------------------------- one group

// x * sigmoid(x): the sigmoid's two-sided form keeps silu accurate where the
// spec's x / (1 + e^-x) flushes to -0 (x < -88.72).
template <class D, size_t K>
HWY_INLINE Vecs<D, K> SiluVec(D d, const Vecs<D, K>& x) {
  auto s = Sigmoid<SigmoidNaN::kCallerMultipliesByX>(d, x);
  for (size_t j = 0; j < K; ++j) s[j] = hn::Mul(x[j], s[j]);
  return s;
}

// x * Phi(x), Phi the normal CDF: the spec's x * 0.5 * (1 + erf(x / sqrt 2)).
template <class D, size_t K>
HWY_INLINE Vecs<D, K> GeluErfVec(D d, const Vecs<D, K>& x) {
  auto p = NormalCdf(d, x);
  for (size_t j = 0; j < K; ++j) p[j] = hn::Mul(x[j], p[j]);
  return p;
}

// 0.5 x (1 + tanh(a)) = x * sigmoid(2a) with 2a = x (k0 + k1 x^2),
// k0 = 2 sqrt(2/pi), k1 = 0.044715 k0: one exp and no cancellation at
// negative x, where 1 + tanh(a) would cancel. x^2 = inf gives 2a = +-inf and
// the formula's own limits (x for +inf, NaN for -inf as -inf * 0).
template <class D, size_t K>
HWY_INLINE Vecs<D, K> GeluTanhVec(D d, const Vecs<D, K>& x) {
  Vecs<D, K> a;
  for (size_t j = 0; j < K; ++j) {
    const auto inner =
        hn::MulAdd(hn::Set(d, 0.07135481387376785f), hn::Mul(x[j], x[j]), hn::Set(d, 1.5957691669464111f));
    a[j] = hn::Mul(x[j], inner);
  }
  a = Sigmoid<SigmoidNaN::kCallerMultipliesByX>(d, a);  // a is NaN only where x is
  for (size_t j = 0; j < K; ++j) a[j] = hn::Mul(x[j], a[j]);
  return a;
}

// Products of each lane of two groups.
template <class V, size_t K>
HWY_INLINE std::array<V, K> MulEach(std::array<V, K> a, const std::array<V, K>& b) {
  for (size_t j = 0; j < K; ++j) a[j] = hn::Mul(a[j], b[j]);
  return a;
}

// +0 for x <= 0 (-0 included), x otherwise; NaN compares false and passes.
// On AVX-512 one vfixupimmps does it by the class of x (NaN, zero, -inf,
// +inf, 1, other negative or positive): x for NaN, +1, +inf and positive, +0
// for the rest. The compare and masked zeroing are two operations.
template <class D>
HWY_INLINE hn::Vec<D> ReluVec(D d, hn::Vec<D> x) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  (void)d;
  return hn::Vec<D>{_mm512_fixupimm_ps(x.raw, x.raw, _mm512_set1_epi32(0x18181811), 0)};
#else
  return hn::IfThenZeroElse(hn::Le(x, hn::Zero(d)), x);
#endif
}

// x for x > 0, slope * x otherwise (NaN: slope * NaN). On AVX-512 the
// product is taken only in the lanes that need it, merged into x: a compare
// and a masked multiply, where the select would be a third operation.
template <class D>
HWY_INLINE hn::Vec<D> LeakyVec(D d, hn::Vec<D> x, hn::Vec<D> slope) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  const __mmask16 not_positive = _mm512_cmp_ps_mask(x.raw, hn::Zero(d).raw, _CMP_NGT_UQ);
  return hn::Vec<D>{_mm512_mask_mul_ps(x.raw, not_positive, slope.raw, x.raw)};
#else
  return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Mul(slope, x));
#endif
}

// LeakyVec with one slope for the whole array. For 0 < alpha <= 1 on x86 it
// is max(x, alpha x), the same bits in every case (alpha x is the larger
// exactly where x <= 0, equal at alpha = 1, and x86's max returns its second
// operand, the NaN product, where x is NaN): two operations instead of three,
// 1x4096 in L1 48 -> 54-58 % of a copy. Other slopes make that max wrong:
// alpha = 0 turns +inf into 0 * inf = NaN, alpha < 0 or > 1 picks the wrong
// side (mutant act_m10); and Highway's scalar Max does not keep the second NaN.
template <class D>
HWY_INLINE hn::Vec<D> LeakyVecUniform(D d, hn::Vec<D> x, float alpha) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  if (alpha > 0.0f && alpha <= 1.0f) return hn::Max(x, hn::Mul(hn::Set(d, alpha), x));
#endif
  return LeakyVec(d, x, hn::Set(d, alpha));
}

// A one-vector function applied to each vector of a group (the short ones,
// which need no interleaving).
template <class F>
HWY_INLINE auto EachVec(const F& f) {
  return [f](auto d, auto v) HWY_ATTR {
    for (auto& x : v) x = f(d, x);
    return v;
  };
}

// MapUnary over f16 or bf16 bits: each group widened in the registers, f,
// rounded back (half-inl.h's WidenVec and NarrowVec, the conversions
// ThroughF32 makes, so the same bits), instead of ThroughF32's three passes
// through a float block on the stack, which bound the half twins to a
// fraction of a copy's bandwidth (three stores a vector). The tail, and
// every value where Format has no vector conversion on this target, go
// through ThroughF32 with MapUnary(f). y == x works.
template <class Format, class F>
HWY_INLINE void MapUnaryHalf(const uint16_t* x, uint16_t* y, int64_t n, const F& f) {
  if (n <= 0) return;
  if constexpr (half::kToBf16Cvt<Format>)
    if (HasBf16Cvt()) return MapUnaryHalf<half::BF16Cvt>(x, y, n, f);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  if constexpr (Format::kPairs) {  // 64 values a step, as even and odd positions
    const hn::ScalableTag<float> d;
    for (; i + 64 <= count; i += 64) {
      Vecs<decltype(d), 4> v;
      Format::WidenPair(x + i, v[0], v[1]);
      Format::WidenPair(x + i + 32, v[2], v[3]);
      v = f(d, v);
      Format::NarrowPair(v[0], v[1], y + i);
      Format::NarrowPair(v[2], v[3], y + i + 32);
    }
  }
  if constexpr (Format::kVector) {
    const hn::ScalableTag<float> d;
    const size_t N = hn::Lanes(d);
    for (; i + 4 * N <= count; i += 4 * N) {
      Vecs<decltype(d), 4> v;
      for (size_t j = 0; j < 4; ++j) v[j] = Format::WidenVec(d, x + i + j * N);
      v = f(d, v);
      for (size_t j = 0; j < 4; ++j) Format::NarrowVec(d, v[j], y + i + j * N);
    }
  }
  if (i < count)
    half::ThroughF32<Format>(x + i, y + i, static_cast<int64_t>(count - i),
                             [&f](const float* a, float* b, int64_t m) { MapUnary(a, b, m, f); });
}

// Relu on f16 or bf16 bits, never widened: both formats store sign and
// magnitude, so read as int16 a negative value (-0 included) is below 0 and
// max(x, 0) is +0 for it and x for the rest; a NaN (magnitude above the
// infinity's) keeps its sign and gets the quiet bit, as the round trip
// through f32 gives it (MapUnaryHalf with ReluGroup: the same bits on all
// 65536 inputs). Two 16-bit lanes per f32 lane and no conversions: the
// round trip's widening and rounding cost more than the copy in L1 and L2.
template <class Format>
HWY_INLINE uint16_t ReluBits(uint16_t h) {
  if ((h & 0x7fff) > Format::kInfBits) return static_cast<uint16_t>(h | Format::kQuietBit);
  return (h & 0x8000) ? 0 : h;
}
template <class Format>
HWY_INLINE void ReluHalf(const uint16_t* x, uint16_t* y, int64_t n) {
  if (n <= 0) return;
  const hn::ScalableTag<int16_t> d;
  const size_t N = hn::Lanes(d), count = static_cast<size_t>(n);
  const auto zero = hn::Zero(d), magnitude = hn::Set(d, 0x7fff);
  const auto inf = hn::Set(d, static_cast<int16_t>(Format::kInfBits));
  const auto quiet = hn::Set(d, static_cast<int16_t>(Format::kQuietBit));
  const auto relu = [&](hn::Vec<decltype(d)> v) HWY_ATTR {
    return hn::IfThenElse(hn::Gt(hn::And(v, magnitude), inf), hn::Or(v, quiet), hn::Max(v, zero));
  };
  // Each vector loaded once into a register: GCC otherwise folds the load
  // into each of the three operations that read it (three loads a vector
  // where a copy takes one, which bounded it at 1x4096 in L1).
  const auto load = [&](size_t at) HWY_ATTR {
    auto v = hn::LoadU(d, reinterpret_cast<const int16_t*>(x) + at);
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
    asm("" : "+v"(v.raw));
#endif
    return v;
  };
  auto* yi = reinterpret_cast<int16_t*>(y);
  size_t i = 0;
  for (; i + 4 * N <= count; i += 4 * N) {
    const auto v0 = load(i), v1 = load(i + N), v2 = load(i + 2 * N), v3 = load(i + 3 * N);
    // Without a NaN among the four (the common case) the max alone is Relu:
    // the magnitudes' max tested once, three operations a vector, not five.
    const auto m = hn::Max(hn::Max(hn::And(v0, magnitude), hn::And(v1, magnitude)),
                           hn::Max(hn::And(v2, magnitude), hn::And(v3, magnitude)));
    if (HWY_LIKELY(hn::AllFalse(d, hn::Gt(m, inf)))) {
      hn::StoreU(hn::Max(v0, zero), d, yi + i);
      hn::StoreU(hn::Max(v1, zero), d, yi + i + N);
      hn::StoreU(hn::Max(v2, zero), d, yi + i + 2 * N);
      hn::StoreU(hn::Max(v3, zero), d, yi + i + 3 * N);
      continue;
    }
    hn::StoreU(relu(v0), d, yi + i);
    hn::StoreU(relu(v1), d, yi + i + N);
    hn::StoreU(relu(v2), d, yi + i + 2 * N);
    hn::StoreU(relu(v3), d, yi + i + 3 * N);
  }
  for (; i + N <= count; i += N) hn::StoreU(relu(load(i)), d, yi + i);
  for (; i < count; ++i) y[i] = ReluBits<Format>(x[i]);
}

// ---------------------------------------------------------------- kernels

// Each unary op's group function, shared by its f32 kernel and its half
// twins (MapUnary, MapUnaryHalf).
#define KONFORM_ACT_GROUP(Name, expr)         \
  struct Name {                               \
    template <class D, class V>               \
    HWY_INLINE V operator()(D d, V v) const { \
      return expr;                            \
    }                                         \
  };
KONFORM_ACT_GROUP(SiluGroup, SiluVec(d, v))
KONFORM_ACT_GROUP(GeluErfGroup, GeluErfVec(d, v))
KONFORM_ACT_GROUP(GeluTanhGroup, GeluTanhVec(d, v))
KONFORM_ACT_GROUP(ReluGroup, EachVec([](auto d1, auto x) HWY_ATTR { return ReluVec(d1, x); })(d, v))
KONFORM_ACT_GROUP(SigmoidGroup, Sigmoid(d, v))
KONFORM_ACT_GROUP(TanhGroup, TanhF(d, v))
#undef KONFORM_ACT_GROUP

inline auto LeakyGroup(float alpha) {
  return EachVec([alpha](auto d, auto v) HWY_ATTR { return LeakyVecUniform(d, v, alpha); });
}

inline void SiluF32(const float* x, float* y, int64_t n) { MapUnary(x, y, n, SiluGroup()); }

inline void GeluErfF32(const float* x, float* y, int64_t n) { MapUnary(x, y, n, GeluErfGroup()); }

inline void GeluTanhF32(const float* x, float* y, int64_t n) { MapUnary(x, y, n, GeluTanhGroup()); }

inline void ReluF32(const float* x, float* y, int64_t n) { MapUnary(x, y, n, ReluGroup()); }

inline void LeakyReluF32(const float* x, float* y, int64_t n, float alpha) { MapUnary(x, y, n, LeakyGroup(alpha)); }

inline void SigmoidF32(const float* x, float* y, int64_t n) { MapUnary(x, y, n, SigmoidGroup()); }

inline void TanhF32(const float* x, float* y, int64_t n) { MapUnary(x, y, n, TanhGroup()); }

// [outer, channels, inner]. Channels-last rows (inner == 1) are x and the
// slopes mapped together like a gated pair; otherwise each channel's run of
// `inner` elements shares one broadcast slope.
inline void PReluF32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  if (outer <= 0 || channels <= 0 || inner <= 0) return;
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o)
      MapGated(x + o * channels, slope, y + o * channels, channels, [](auto dd, auto v, const auto& s) HWY_ATTR {
        for (size_t j = 0; j < v.size(); ++j) v[j] = LeakyVec(dd, v[j], s[j]);
        return v;
      });
    return;
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t base = (o * channels + c) * inner;
      const float s = slope[c];
      MapUnary(x + base, y + base, inner,
               EachVec([s](auto dd, auto v) HWY_ATTR { return LeakyVec(dd, v, hn::Set(dd, s)); }));
    }
}

// silu(gate) * up, the product taken after silu so that it overflows only
// where the result does.
inline void SwiGluF32(const float* gate, const float* up, float* y, int64_t n) {
  MapGated(gate, up, y, n, [](auto d, auto g, auto u) HWY_ATTR { return MulEach(SiluVec(d, g), u); });
}

// gelu(gate) * up; approximation checked by the caller (0 erf, 1 tanh).
inline void GeGluF32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  if (approximation == 1) {
    MapGated(gate, up, y, n, [](auto d, auto g, auto u) HWY_ATTR { return MulEach(GeluTanhVec(d, g), u); });
  } else {
    MapGated(gate, up, y, n, [](auto d, auto g, auto u) HWY_ATTR { return MulEach(GeluErfVec(d, g), u); });
  }
}

inline void GluF32(const float* gate, const float* up, float* y, int64_t n) {
  MapGated(gate, up, y, n, [](auto d, auto g, auto u) HWY_ATTR { return MulEach(Sigmoid(d, g), u); });
}

}  // namespace konform::simd::HWY_NAMESPACE::act
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_ACTIVATIONS_INL_H_
