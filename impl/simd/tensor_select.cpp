// libtl_kernels: Clamp and NanToNum of tinyllm/tensor.h, compiled once per
// Highway target and dispatched at run time. Each output lane is one of its input's bits or a
// given value, chosen by compares, so every target gives the oracle's bits.
//
// Clamp is not Max then Min: x86's maxps/minps return their second operand
// for NaN and for a pair of zeros, which would replace a NaN x by a bound and
// pick a zero's sign by operand order. Compares and blends keep x unless it
// is strictly outside [lo, hi]. y may be x: vectors are loaded before stored.
//
// One file holds an op group's Highway code and its tl_* functions:
// foreach_target.h includes it again once per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/tensor_select.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstddef>
#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "impl/simd/half-inl.h"
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

template <class Format>
void ClampHalf(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) {
  half::ThroughF32<Format>(x, y, n, [lo, hi](const float* a, float* b, int64_t m) { Clamp(a, b, m, lo, hi); });
}
template <class Format>
void NanToNumHalf(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf) {
  half::ThroughF32<Format>(x, y, n,
                           [=](const float* a, float* b, int64_t m) { NanToNum(a, b, m, nan, posinf, neginf); });
}
void ClampF16(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) { ClampHalf<half::F16>(x, y, n, lo, hi); }
void ClampBF16(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) {
  ClampHalf<half::BF16>(x, y, n, lo, hi);
}
void NanToNumF16(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf) {
  NanToNumHalf<half::F16>(x, y, n, nan, posinf, neginf);
}
void NanToNumBF16(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf) {
  NanToNumHalf<half::BF16>(x, y, n, nan, posinf, neginf);
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "impl/common/status.hpp"
#include "impl/common/tensor_op_checks.hpp"
#include "tinyllm/tensor.h"

namespace konform::simd {
HWY_EXPORT(Clamp);
HWY_EXPORT(NanToNum);
HWY_EXPORT(ClampF16);
HWY_EXPORT(ClampBF16);
HWY_EXPORT(NanToNumF16);
HWY_EXPORT(NanToNumBF16);
}  // namespace konform::simd

namespace ks = konform::simd;
namespace kt = konform::impl::tensor;

extern "C" {

tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (tl_status s = kt::CheckClamp(x, y, n, lo, hi)) return s;
  HWY_DYNAMIC_DISPATCH(ks::Clamp)(x, y, n, lo, hi);
  return TL_OK;
}

tl_status tl_nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  if (tl_status s = kt::CheckElementwise(x, y, n)) return s;
  HWY_DYNAMIC_DISPATCH(ks::NanToNum)(x, y, n, nan, posinf, neginf);
  return TL_OK;
}

#define KONFORM_HALF_SELECT(Dtype, Kernel)                                                                            \
  tl_status tl_clamp_##Dtype(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) {                         \
    if (tl_status s = kt::CheckClamp(x, y, n, lo, hi)) return s;                                                      \
    HWY_DYNAMIC_DISPATCH(ks::Clamp##Kernel)(x, y, n, lo, hi);                                                         \
    return TL_OK;                                                                                                     \
  }                                                                                                                   \
  tl_status tl_nan_to_num_##Dtype(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf) { \
    if (tl_status s = kt::CheckElementwise(x, y, n)) return s;                                                        \
    HWY_DYNAMIC_DISPATCH(ks::NanToNum##Kernel)(x, y, n, nan, posinf, neginf);                                         \
    return TL_OK;                                                                                                     \
  }
KONFORM_HALF_SELECT(f16, F16)
KONFORM_HALF_SELECT(bf16, BF16)
#undef KONFORM_HALF_SELECT

}  // extern "C"
#endif  // HWY_ONCE
