// The per-output reductions of the conv family's vector code, one output per
// lane, fed one tap at a time: Pool's max and avg (for the patch path of
// conv-inl.h and the direct path of conv_window-inl.h) and DepthwiseConv's
// dot product (direct path; PatchDot keeps its four-channel loop). One
// definition, so both paths give the same bits.

#if defined(KONFORM_SIMD_CONV_REDUCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_CONV_REDUCE_INL_H_
#undef KONFORM_SIMD_CONV_REDUCE_INL_H_
#else
#define KONFORM_SIMD_CONV_REDUCE_INL_H_
#endif

#include <cstddef>
#include <limits>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The depthwise dot product: w[t] times tap t, from 0, bias added last.
template <class D>
struct DotWindow {
  const float* w;
  const float* bias;
  hn::Vec<D> acc;
  void Start(D d) { acc = hn::Zero(d); }
  void Tap(D d, hn::Vec<D> v, size_t t) { acc = hn::MulAdd(hn::Set(d, w[t]), v, acc); }
  hn::Vec<D> Result(D d) const { return bias == nullptr ? acc : hn::Add(acc, hn::Set(d, *bias)); }
};

// Max Pool: the largest tap, or the first NaN in tap order quieted.
template <class D>
struct MaxWindow {
  hn::Vec<D> acc, first_nan;
  hn::Mask<D> seen;
  void Start(D d) {
    acc = hn::Set(d, -std::numeric_limits<float>::infinity());
    first_nan = hn::Zero(d);
    seen = hn::FirstN(d, 0);
  }
  void Tap(D, hn::Vec<D> v, size_t) {
    const auto nan = hn::IsNaN(v);
    first_nan = hn::IfThenElse(hn::AndNot(seen, nan), v, first_nan);
    seen = hn::Or(seen, nan);
    acc = hn::Max(acc, v);
  }
  hn::Vec<D> Result(D d) const { return hn::IfThenElse(seen, hn::Add(first_nan, hn::Zero(d)), acc); }
};

// Avg Pool: the taps summed in order from 0, divided by the tap count.
template <class D>
struct AvgWindow {
  float taps;
  hn::Vec<D> acc;
  void Start(D d) { acc = hn::Zero(d); }
  void Tap(D, hn::Vec<D> v, size_t) { acc = hn::Add(acc, v); }
  hn::Vec<D> Result(D d) const { return hn::Div(acc, hn::Set(d, taps)); }
};

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_CONV_REDUCE_INL_H_
