// The vectorised parts of tl_sample_f32 (tinyllm/sampling.h): the row's
// largest number (NaN skipped) and the weights w_i = exp((l_i - m) / t),
// with 0 for NaN and -Inf logits. The kept set, the sorting (TopK: partial
// sort, TopP: sort) and the draw's cumulative sums (in double) are scalar
// code in sampling_simd.cpp.

#if defined(KONFORM_SIMD_SAMPLING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_SAMPLING_INL_H_
#undef KONFORM_SIMD_SAMPLING_INL_H_
#else
#define KONFORM_SIMD_SAMPLING_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "impl/simd/activation_math-inl.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE::samp {
namespace hn = hwy::HWY_NAMESPACE;

// The largest non-NaN logit; -Inf when there is none (all NaN or all -Inf).
inline float RowMax(const float* x, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto neg_inf = hn::Set(d, -std::numeric_limits<float>::infinity());
  auto m0 = neg_inf, m1 = neg_inf;
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto a = hn::LoadU(d, x + i), b = hn::LoadU(d, x + i + N);
    m0 = hn::Max(m0, hn::IfThenElse(hn::IsNaN(a), neg_inf, a));
    m1 = hn::Max(m1, hn::IfThenElse(hn::IsNaN(b), neg_inf, b));
  }
  for (; i + N <= n; i += N) {
    const auto a = hn::LoadU(d, x + i);
    m0 = hn::Max(m0, hn::IfThenElse(hn::IsNaN(a), neg_inf, a));
  }
  if (i < n) {
    const auto a = hn::IfThenElse(hn::FirstN(d, n - i), LoadHead(d, x + i, n - i), neg_inf);
    m1 = hn::Max(m1, hn::IfThenElse(hn::IsNaN(a), neg_inf, a));
  }
  return MaxLane(d, hn::Max(m0, m1));
}

// w_i = exp((x_i - m) / t) for a finite m; 0 for NaN and -Inf x_i.
inline void Weights(const float* x, float* w, size_t n, float m, float t) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto vm = hn::Set(d, m), vt = hn::Set(d, t);
  const auto neg_inf = hn::Set(d, -std::numeric_limits<float>::infinity());
  const auto one = [&](hn::Vec<decltype(d)> v) {
    const auto e = act::ExpF(d, hn::Div(hn::Sub(v, vm), vt));
    return hn::IfThenZeroElse(hn::Or(hn::IsNaN(v), hn::Eq(v, neg_inf)), e);
  };
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(one(hn::LoadU(d, x + i)), d, w + i);
  if (i < n) StoreHead(one(LoadHead(d, x + i, n - i)), d, w + i, n - i);
}

}  // namespace konform::simd::HWY_NAMESPACE::samp
HWY_AFTER_NAMESPACE();

#endif  // include guard
