// Clamp and NanToNum: each output lane is one of its input's bits or a
// given value, chosen by compares, so every target gives the oracle's bits.
//
// Clamp is not Max then Min: x86's maxps/minps return their second operand
// for NaN and for a pair of zeros, which would replace a NaN x by a bound and
// pick a zero's sign by operand order. Compares and blends keep x unless it
// is strictly outside [lo, hi]. y may be x: vectors are loaded before stored.

#if defined(KONFORM_SIMD_TENSOR_SELECT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_TENSOR_SELECT_INL_H_
#undef KONFORM_SIMD_TENSOR_SELECT_INL_H_
#else
#define KONFORM_SIMD_TENSOR_SELECT_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// y[i] = f(x[i]) for a lane-wise f: two vectors per step, then a partial one.
template <class D, class F>
HWY_INLINE void MapLanes(D d, const float* x, float* y, size_t n, const F& f) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto y0 = f(hn::LoadU(d, x + i)), y1 = f(hn::LoadU(d, x + i + N));
    hn::StoreU(y0, d, y + i);
    hn::StoreU(y1, d, y + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(f(hn::LoadU(d, x + i)), d, y + i);
  if (i < n) StoreHead(f(LoadHead(d, x + i, n - i)), d, y + i, n - i);
}

inline void Clamp(const float* x, float* y, int64_t n, float lo, float hi) {
  if (n <= 0) return;
  using D = hn::ScalableTag<float>;
  const D d;
  const auto vlo = hn::Set(d, lo), vhi = hn::Set(d, hi);
  MapLanes(d, x, y, static_cast<size_t>(n), [&](hn::Vec<D> v) HWY_ATTR {
    return hn::IfThenElse(hn::Lt(v, vlo), vlo, hn::IfThenElse(hn::Gt(v, vhi), vhi, v));
  });
}

inline void NanToNum(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  if (n <= 0) return;
  using D = hn::ScalableTag<float>;
  const D d;
  const auto vnan = hn::Set(d, nan), vpos = hn::Set(d, posinf), vneg = hn::Set(d, neginf);
  const auto inf = hn::Set(d, std::numeric_limits<float>::infinity());
  MapLanes(d, x, y, static_cast<size_t>(n), [&](hn::Vec<D> v) HWY_ATTR {
    const auto kept = hn::IfThenElse(hn::Eq(v, inf), vpos, hn::IfThenElse(hn::Eq(v, hn::Neg(inf)), vneg, v));
    return hn::IfThenElse(hn::IsNaN(v), vnan, kept);
  });
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TENSOR_SELECT_INL_H_
