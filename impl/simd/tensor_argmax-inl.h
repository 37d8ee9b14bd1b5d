// Argmax along one axis of a tensor seen as [outer, length, inner], with the
// rule of tl_argmax_f32 on every slice: strict > scanning forward (ties go to
// the lowest index), NaN skipped, -1 for a slice without a number.
//
// inner == 1: the slices are contiguous rows, and each goes through the
// six-kernel Argmax (argmax-inl.h). inner > 1: the slices interleave, so a
// vector holds neighbouring slices and walks the axis (ArgmaxLanes). Up to
// four vectors share one walk so that each row of the axis is read once per
// 4N slices.

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

// Per lane, the larger of m and x, where a NaN x leaves m (m is never NaN).
// x86's max returns its second operand when either is NaN, which is exactly
// that in one instruction; elsewhere a compare and a blend.
template <class D>
HWY_INLINE hn::Vec<D> MaxSkippingNaN(D d, hn::Vec<D> x, hn::Vec<D> m) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  (void)d;
  return hn::Max(x, m);
#else
  (void)d;
  return hn::IfThenElse(hn::Gt(x, m), x, m);
#endif
}

// The argmax of `lanes` (<= V * N) neighbouring slices, which start at x[0],
// x[1], ... and step `inner` along the axis, by blocks of kBlock steps (in L1
// for the second read). Per block and lane: its max m over the numbers (-inf
// if none), then the first step holding m, found by walking the block
// backwards and keeping the last match; that block wins the lane if it found
// one and (the lane has no index yet, or m > the best so far), so equal
// maxima keep the earlier block, and a slice of NaN only keeps -1. Two to
// four operations per vector and step, where one compare-and-take step that
// tracks the index needs six or more.
template <int V, class D>
HWY_INLINE void ArgmaxLanes(D d, const float* x, int64_t length, int64_t inner, size_t lanes, int32_t* out) {
  constexpr int64_t kBlock = 64;
  const hn::RebindToSigned<D> di;
  const size_t N = hn::Lanes(d);
  const auto neg_inf = hn::Set(d, -std::numeric_limits<float>::infinity());
  const auto none = hn::Set(di, -1);
  hn::Vec<D> best[V];
  hn::Vec<decltype(di)> index[V];
  for (int v = 0; v < V; ++v) best[v] = neg_inf, index[v] = none;
  auto load = [&](int64_t k, int v) HWY_ATTR {
    const float* row = x + k * inner;
    const size_t first = static_cast<size_t>(v) * N;
    // (the bound only tells the compiler what it cannot see: lanes - first < N here)
    return first + N <= lanes ? hn::LoadU(d, row + first)
                              : LoadHead(d, row + first, HWY_MIN(lanes - first, hn::MaxLanes(d)));
  };
  for (int64_t k0 = 0; k0 < length; k0 += kBlock) {
    const int64_t k1 = HWY_MIN(length, k0 + kBlock);
    hn::Vec<D> m[V], m_odd[V];  // even and odd steps: two chains per vector
    for (int v = 0; v < V; ++v) m[v] = m_odd[v] = neg_inf;
    int64_t k = k0;
    for (; k + 2 <= k1; k += 2)
      for (int v = 0; v < V; ++v) {
        m[v] = MaxSkippingNaN(d, load(k, v), m[v]);
        m_odd[v] = MaxSkippingNaN(d, load(k + 1, v), m_odd[v]);
      }
    for (int v = 0; v < V; ++v) {
      if (k < k1) m[v] = MaxSkippingNaN(d, load(k, v), m[v]);
      m[v] = hn::Max(m[v], m_odd[v]);  // neither holds a NaN
    }
    hn::Vec<decltype(di)> first[V];
    for (int v = 0; v < V; ++v) first[v] = none;
    for (k = k1 - 1; k >= k0; --k) {
      const auto kv = hn::Set(di, static_cast<int32_t>(k));
      for (int v = 0; v < V; ++v) first[v] = hn::IfThenElse(hn::RebindMask(di, hn::Eq(load(k, v), m[v])), kv, first[v]);
    }
    for (int v = 0; v < V; ++v) {
      const auto found = hn::RebindMask(d, hn::Gt(first[v], none));
      const auto unset = hn::RebindMask(d, hn::Lt(index[v], hn::Zero(di)));
      const auto take = hn::And(found, hn::Or(unset, hn::Gt(m[v], best[v])));
      best[v] = hn::IfThenElse(take, m[v], best[v]);
      index[v] = hn::IfThenElse(hn::RebindMask(di, take), first[v], index[v]);
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
  const size_t count = static_cast<size_t>(inner);
  for (int64_t o = 0; o < outer; ++o) {
    const float* xo = x + o * length * inner;
    int32_t* oo = out + o * inner;
    for (size_t j = 0; j < count;) {  // up to four vectors of slices share one walk down the axis
      const size_t lanes = HWY_MIN(4 * N, count - j), vectors = (lanes + N - 1) / N;
      if (vectors == 4) ArgmaxLanes<4>(d, xo + j, length, inner, lanes, oo + j);
      else if (vectors == 3) ArgmaxLanes<3>(d, xo + j, length, inner, lanes, oo + j);
      else if (vectors == 2) ArgmaxLanes<2>(d, xo + j, length, inner, lanes, oo + j);
      else ArgmaxLanes<1>(d, xo + j, length, inner, lanes, oo + j);
      j += lanes;
    }
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TENSOR_ARGMAX_INL_H_
