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

template <class D>
HWY_INLINE hn::Vec<D> SiluMulVec(D d, hn::Vec<D> g, hn::Vec<D> u) {
  // Highway's Exp is valid on [-FLT_MAX, 104]. Clamping -g to [-104, 100]
  // keeps both limits: exp(100) is already +inf in float (overflow past
  // 88.72) and exp(-104) is 0 against the 1. A NaN g stays NaN through g / .
  const auto arg = hn::Min(hn::Max(hn::Neg(g), hn::Set(d, -104.0f)), hn::Set(d, 100.0f));
  const auto e = hn::Exp(d, arg);
  return hn::Mul(hn::Div(g, hn::Add(hn::Set(d, 1.0f), e)), u);
}

inline void SiluMul(const float* gate, const float* up, float* y, int64_t n) {
  if (n <= 0) return;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + 2 * N <= count; i += 2 * N) {
    const auto y0 = SiluMulVec(d, hn::LoadU(d, gate + i), hn::LoadU(d, up + i));
    const auto y1 = SiluMulVec(d, hn::LoadU(d, gate + i + N), hn::LoadU(d, up + i + N));
    hn::StoreU(y0, d, y + i);
    hn::StoreU(y1, d, y + i + N);
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
