// SiLU-mul: y = g / (1 + exp(-g)) * u, in the oracle's form, so that it
// saturates without NaN: exp(-g) = +inf gives g / inf = -0 for very negative
// g, and exp(-g) = 0 gives g * u for large g.

#if defined(KONFORM_SIMD_SILU_MUL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_SILU_MUL_INL_H_
#undef KONFORM_SIMD_SILU_MUL_INL_H_
#else
#define KONFORM_SIMD_SILU_MUL_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// e^x for x in [-104, 100], in half the operations of hn::Exp (silu_mul is
// bound by arithmetic on AVX-512, not by memory): x = k ln2 + r with
// |r| <= ln2/2 (ln2 in two parts, so r is exact to float rounding), e^r by
// its Taylor polynomial of degree 7 (truncation < 0.1 ulp), and 2^k by
// vscalefps, which overflows to +inf and underflows to 0 like e^x itself.
template <class D>
HWY_INLINE hn::Vec<D> ExpClamped(D d, hn::Vec<D> x) {
  const auto k = hn::Round(hn::Mul(x, hn::Set(d, 1.44269504088896341f)));
  auto r = hn::NegMulAdd(k, hn::Set(d, 0.693359375f), x);  // 0.693359375 has 9 bits
  r = hn::NegMulAdd(k, hn::Set(d, -2.12194440e-4f), r);
  auto p = hn::Set(d, 1.0f / 5040.0f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 720.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 120.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 24.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 6.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.5f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  return hn::Vec<D>{_mm512_scalef_ps(p.raw, k.raw)};
}
#else
// Highway's Exp, valid on [-FLT_MAX, 104].
template <class D>
HWY_INLINE hn::Vec<D> ExpClamped(D d, hn::Vec<D> x) {
  return hn::Exp(d, x);
}
#endif

template <class D>
HWY_INLINE hn::Vec<D> SiluMulVec(D d, hn::Vec<D> g, hn::Vec<D> u) {
  // Clamping -g to [-104, 100] keeps both limits: e^100 is already +inf in
  // float (overflow past 88.72) and e^-104 is 0 against the 1. A NaN g stays
  // NaN through g / (1 + e).
  const auto arg = hn::Min(hn::Max(hn::Neg(g), hn::Set(d, -104.0f)), hn::Set(d, 100.0f));
  const auto e = ExpClamped(d, arg);
  return hn::Mul(hn::Div(g, hn::Add(hn::Set(d, 1.0f), e)), u);
}

inline void SiluMul(const float* gate, const float* up, float* y, int64_t n) {
  if (n <= 0) return;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  // Four independent vectors per step: the exp and the division are long
  // dependency chains, and the out-of-order window alone overlaps too few.
  for (; i + 4 * N <= count; i += 4 * N) {
    const auto y0 = SiluMulVec(d, hn::LoadU(d, gate + i), hn::LoadU(d, up + i));
    const auto y1 = SiluMulVec(d, hn::LoadU(d, gate + i + N), hn::LoadU(d, up + i + N));
    const auto y2 = SiluMulVec(d, hn::LoadU(d, gate + i + 2 * N), hn::LoadU(d, up + i + 2 * N));
    const auto y3 = SiluMulVec(d, hn::LoadU(d, gate + i + 3 * N), hn::LoadU(d, up + i + 3 * N));
    hn::StoreU(y0, d, y + i);
    hn::StoreU(y1, d, y + i + N);
    hn::StoreU(y2, d, y + i + 2 * N);
    hn::StoreU(y3, d, y + i + 3 * N);
  }
  for (; i + N <= count; i += N) {
    hn::StoreU(SiluMulVec(d, hn::LoadU(d, gate + i), hn::LoadU(d, up + i)), d, y + i);
  }
  if (i < count) {
    const size_t m = count - i;
    StoreHead(SiluMulVec(d, LoadHead(d, gate + i, m), LoadHead(d, up + i, m)), d, y + i, m);
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_SILU_MUL_INL_H_
