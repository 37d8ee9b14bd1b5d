// RoPE in place on x[T, H, D]: for each token a table of cos and sin, one per
// pair, shared by all heads, then a rotation of every head from the table.
//
// The rotation is the oracle's float expression, mu * (a*c - b*s) and
// mu * (a*s + b*c), with no FMA (the library builds with -ffp-contract=off), so
// given the same cos and sin the result is bit for bit the scalar backend's.

#if defined(KONFORM_SIMD_ROPE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_ROPE_INL_H_
#undef KONFORM_SIMD_ROPE_INL_H_
#else
#define KONFORM_SIMD_ROPE_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Highway's float Sin/Cos reduce the argument with a four-part pi, documented
// valid for |x| <= 39000. Measured against double cos/sin: at most 2.4 units
// of 2^-24 for |x| < 2^15 on every target; without FMA (SSE4, SSSE3, SCALAR)
// the error reaches 16 units in [2^15, 2^16) and then explodes. Angles past
// this bound go to libm in double.
constexpr float kRopeSinCosLimit = 16384.0f;

// c[i] = cos(theta_i), s[i] = sin(theta_i) for i < half, theta_i the
// contract's angle (float)((double)pos * inv_freq[i]); c and s are padded to a
// whole number of vectors. inv_freq[half..] is never read.
template <class D>
HWY_INLINE void RopeCosSin(D d, int32_t pos, const float* inv_freq, size_t half, float* c, float* s) {
  const size_t N = hn::Lanes(d);
  // Below 2^24 the float product of float(pos) and inv_freq is exactly the
  // double product rounded once to float.
  const int64_t apos = pos < 0 ? -static_cast<int64_t>(pos) : pos;
  const bool float_angle = apos < (int64_t{1} << 24);
  const auto vpos = hn::Set(d, static_cast<float>(pos));
  const auto limit = hn::Set(d, kRopeSinCosLimit);
  for (size_t i = 0; i < half; i += N) {
    const size_t m = HWY_MIN(N, half - i);
    const auto f = m == N ? hn::LoadU(d, inv_freq + i) : LoadHead(d, inv_freq + i, m);
    const auto theta = hn::Mul(vpos, f);
    if (float_angle && hn::AllTrue(d, hn::Le(hn::Abs(theta), limit))) {
      // Exactly cos 0 = 1 and sin 0 = +0: position 0 is the identity.
      const auto zero = hn::Eq(theta, hn::Zero(d));
      hn::Store(hn::IfThenElse(zero, hn::Set(d, 1.0f), hn::Cos(d, theta)), d, c + i);
      hn::Store(hn::IfThenZeroElse(zero, hn::Sin(d, theta)), d, s + i);
    } else {
      for (size_t k = i; k < i + m; ++k) {
        const float t = static_cast<float>(static_cast<double>(pos) * inv_freq[k]);
        c[k] = static_cast<float>(std::cos(static_cast<double>(t)));
        s[k] = static_cast<float>(std::sin(static_cast<double>(t)));
      }
    }
  }
}

// mu * z, skipped when mu is 1 (exact either way, bits included).
template <bool kScale, class V>
HWY_INLINE V Scale(V mu, V z) {
  return kScale ? hn::Mul(mu, z) : z;
}

// Layout 0: pair i is (x[i], x[i + half]).
template <bool kScale, class D>
HWY_INLINE void RotateHalf(D d, float* x, size_t half, const float* c, const float* s, hn::Vec<D> mu) {
  const size_t N = hn::Lanes(d);
  float* xb = x + half;
  size_t i = 0;
  for (; i + N <= half; i += N) {
    const auto a = hn::LoadU(d, x + i), b = hn::LoadU(d, xb + i);
    const auto cv = hn::Load(d, c + i), sv = hn::Load(d, s + i);
    hn::StoreU(Scale<kScale>(mu, hn::Sub(hn::Mul(a, cv), hn::Mul(b, sv))), d, x + i);
    hn::StoreU(Scale<kScale>(mu, hn::Add(hn::Mul(a, sv), hn::Mul(b, cv))), d, xb + i);
  }
  if (i < half) {
    const size_t m = half - i;
    const auto a = LoadHead(d, x + i, m), b = LoadHead(d, xb + i, m);
    const auto cv = hn::Load(d, c + i), sv = hn::Load(d, s + i);
    StoreHead(Scale<kScale>(mu, hn::Sub(hn::Mul(a, cv), hn::Mul(b, sv))), d, x + i, m);
    StoreHead(Scale<kScale>(mu, hn::Add(hn::Mul(a, sv), hn::Mul(b, cv))), d, xb + i, m);
  }
}

#if HWY_TARGET == HWY_SCALAR
// One lane cannot hold a pair: layout 1 pair by pair from the half tables.
inline void RotateInterleavedScalar(float* x, size_t half, const float* c, const float* s, float mu) {
  for (size_t i = 0; i < half; ++i) {
    const float a = x[2 * i], b = x[2 * i + 1];
    x[2 * i] = mu * (a * c[i] - b * s[i]);
    x[2 * i + 1] = mu * (a * s[i] + b * c[i]);
  }
}
#else
// Layout 1 as a complex multiply: with cc = (c0, c0, c1, c1, ...) and
// ss = (-s0, s0, -s1, s1, ...), x' = mu * (x*cc + swap(x)*ss). a*c + b*(-s) is
// bitwise a*c - b*s, and b*c + a*s is a*s + b*c: the oracle's expressions.
template <class D>
HWY_INLINE void ExpandInterleaved(D d, const float* c, const float* s, size_t half, float* cc, float* ss) {
  const size_t N = hn::Lanes(d);
  for (size_t i = 0; i < half; i += N) {
    const auto cv = hn::Load(d, c + i), sv = hn::Load(d, s + i);
    hn::StoreInterleaved2(cv, cv, d, cc + 2 * i);
    hn::StoreInterleaved2(hn::Neg(sv), sv, d, ss + 2 * i);
  }
}

template <bool kScale, class D>
HWY_INLINE void RotateInterleaved(D d, float* x, size_t rot, const float* cc, const float* ss, hn::Vec<D> mu) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= rot; i += N) {
    const auto v = hn::LoadU(d, x + i);
    const auto r = hn::Add(hn::Mul(v, hn::Load(d, cc + i)), hn::Mul(hn::Reverse2(d, v), hn::Load(d, ss + i)));
    hn::StoreU(Scale<kScale>(mu, r), d, x + i);
  }
  if (i < rot) {  // rot and i are even: the loaded lanes hold whole pairs
    const size_t m = rot - i;
    const auto v = LoadHead(d, x + i, m);
    const auto r = hn::Add(hn::Mul(v, hn::Load(d, cc + i)), hn::Mul(hn::Reverse2(d, v), hn::Load(d, ss + i)));
    StoreHead(Scale<kScale>(mu, r), d, x + i, m);
  }
}
#endif

template <bool kScale>
void RopeTokens(float* x, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D, size_t half,
                const float* inv_freq, float attn_scaling, int layout) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t padded = hwy::RoundUpTo(half, N);
  // c, s (padded each), then cc, ss (2 * padded each) for layout 1.
  auto table = hwy::AllocateAligned<float>(6 * padded);
  float* c = table.get();
  float* s = c + padded;
  float* cc = s + padded;
  float* ss = cc + 2 * padded;
  (void)cc;
  (void)ss;
  const auto mu = hn::Set(d, attn_scaling);
  constexpr int64_t kPrefetchRows = 8;
  const int64_t rows = tokens * heads;
  for (int64_t t = 0; t < tokens; ++t) {
    RopeCosSin(d, pos[t], inv_freq, half, c, s);
#if HWY_TARGET != HWY_SCALAR
    if (layout != 0) ExpandInterleaved(d, c, s, half, cc, ss);
#endif
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t row = t * heads + h;
      float* xh = x + row * D;
      // The hardware prefetcher alone left the in-place stream at ~75% of
      // the copy reference (L3): ask for the head 8 rows ahead, 64 B a line.
      if (row + kPrefetchRows < rows) {
        for (int64_t k = 0; k < D; k += 16) hwy::Prefetch(xh + kPrefetchRows * D + k);
      }
      if (layout == 0) {
        RotateHalf<kScale>(d, xh, half, c, s, mu);
      } else {
#if HWY_TARGET == HWY_SCALAR
        RotateInterleavedScalar(xh, half, c, s, attn_scaling);
#else
        RotateInterleaved<kScale>(d, xh, 2 * half, cc, ss, mu);
#endif
      }
    }
  }
}

inline void Rope(float* x, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D, int64_t d_rot,
                 const float* inv_freq, float attn_scaling, int layout) {
  if (tokens <= 0 || heads <= 0 || D <= 0 || d_rot < 2) return;
  const size_t half = static_cast<size_t>(d_rot / 2);
  if (attn_scaling == 1.0f) {
    RopeTokens<false>(x, pos, tokens, heads, D, half, inv_freq, attn_scaling, layout);
  } else {
    RopeTokens<true>(x, pos, tokens, heads, D, half, inv_freq, attn_scaling, layout);
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_ROPE_INL_H_
