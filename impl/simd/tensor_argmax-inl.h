// Argmax along one axis of a tensor seen as [outer, length, inner], with the
// rule of tl_argmax_f32 on every slice: strict > scanning forward (ties go to
// the lowest index), NaN skipped, -1 for a slice without a number.
//
// inner == 1: the slices are contiguous rows, and each goes through the
// six-kernel Argmax (argmax-inl.h). inner > 1: the slices interleave, so a
// vector holds `lanes` neighbouring slices and walks the axis, keeping per
// lane the best value and its index: a lane takes x when x is a number and
// (the lane has no index yet, or x > best). Up to four vectors share one walk
// so that each row of the axis is read once per 4N slices.

#if defined(KONFORM_SIMD_TENSOR_ARGMAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_TENSOR_ARGMAX_INL_H_
#undef KONFORM_SIMD_TENSOR_ARGMAX_INL_H_
#else
#define KONFORM_SIMD_TENSOR_ARGMAX_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "hwy/highway.h"
#include "impl/simd/argmax-inl.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The best of `lanes` (<= N) neighbouring slices in each of V vectors:
// slices start at x[0], x[1], ... and step `inner` along the axis.
template <int V, class D>
HWY_INLINE void ArgmaxLanes(D d, const float* x, int64_t length, int64_t inner, size_t lanes, int32_t* out) {
  const hn::RebindToSigned<D> di;
  const size_t N = hn::Lanes(d);
  hn::Vec<D> best[V];
  hn::Vec<decltype(di)> index[V];
  for (int v = 0; v < V; ++v) {
    best[v] = hn::Set(d, -std::numeric_limits<float>::infinity());
    index[v] = hn::Set(di, -1);
  }
  const auto zero = hn::Zero(di);
  for (int64_t k = 0; k < length; ++k) {
    const float* row = x + k * inner;
    const auto kv = hn::Set(di, static_cast<int32_t>(k));
    for (int v = 0; v < V; ++v) {
      const size_t first = static_cast<size_t>(v) * N;
      const auto val = first + N <= lanes ? hn::LoadU(d, row + first) : LoadHead(d, row + first, lanes - first);
      const auto unset = hn::RebindMask(d, hn::Lt(index[v], zero));
      const auto take = hn::And(hn::Eq(val, val), hn::Or(unset, hn::Gt(val, best[v])));
      best[v] = hn::IfThenElse(take, val, best[v]);
      index[v] = hn::IfThenElse(hn::RebindMask(di, take), kv, index[v]);
    }
  }
  HWY_ALIGN int32_t buf[4 * HWY_MAX_BYTES / sizeof(int32_t)];
  for (int v = 0; v < V; ++v) hn::Store(index[v], di, buf + static_cast<size_t>(v) * N);
  std::memcpy(out, buf, lanes * sizeof(int32_t));
}

inline void ArgmaxAxis(const float* x, int64_t outer, int64_t length, int64_t inner, int32_t* out) {
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o) out[o] = Argmax(x + o * length, length);
    return;
  }
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t wide = 4 * N;
  for (int64_t o = 0; o < outer; ++o) {
    const float* xo = x + o * length * inner;
    int32_t* oo = out + o * inner;
    size_t j = 0;
    const size_t count = static_cast<size_t>(inner);
    for (; j + wide <= count; j += wide) ArgmaxLanes<4>(d, xo + j, length, inner, wide, oo + j);
    for (; j < count; j += N) ArgmaxLanes<1>(d, xo + j, length, inner, HWY_MIN(N, count - j), oo + j);
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TENSOR_ARGMAX_INL_H_
