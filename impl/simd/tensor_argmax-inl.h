// Argmax along one axis of a tensor seen as [outer, length, inner], with the
// rule of tl_argmax_f32 on every slice: strict > scanning forward (ties go to
// the lowest index), NaN skipped, -1 for a slice without a number.
//
// inner == 1: the slices are contiguous rows, and each goes through the
// six-kernel Argmax (argmax-inl.h). inner > 1: the slices interleave, so a
// vector holds `lanes` neighbouring slices and walks the axis, keeping per
// lane the best value and its index: a lane takes x when x is a number and
// (the lane has no index yet, or x > best). Up to four vectors share one walk
// so that each row of the axis is read once per 4N slices; the even and odd
// steps keep separate bests (two dependency chains), merged at the end.

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

// Per lane, the best value so far and its index (-1: no number yet).
template <class D>
struct Best {
  hn::Vec<D> value;
  hn::Vec<hn::RebindToSigned<D>> index;
};

// Takes x at index k where x is a number and (no index yet, or x > best).
template <class D>
HWY_INLINE void Take(D d, hn::Vec<D> x, hn::Vec<hn::RebindToSigned<D>> k, Best<D>& b) {
  const hn::RebindToSigned<D> di;
  const auto unset = hn::RebindMask(d, hn::Lt(b.index, hn::Zero(di)));
  const auto take = hn::And(hn::Eq(x, x), hn::Or(unset, hn::Gt(x, b.value)));
  b.value = hn::IfThenElse(take, x, b.value);
  b.index = hn::IfThenElse(hn::RebindMask(di, take), k, b.index);
}

// The better of two bests over disjoint index sets: the larger value, the
// lower index between equal ones (-0 equals +0), so merging the even and the
// odd steps of the axis gives what one forward scan gives.
template <class D>
HWY_INLINE Best<D> Merge(D d, const Best<D>& a, const Best<D>& b) {
  const hn::RebindToSigned<D> di;
  const auto zero = hn::Zero(di);
  const auto b_set = hn::RebindMask(d, hn::Gt(b.index, hn::Set(di, -1)));
  const auto a_unset = hn::RebindMask(d, hn::Lt(a.index, zero));
  const auto b_first = hn::RebindMask(d, hn::Lt(b.index, a.index));
  const auto better = hn::Or(hn::Gt(b.value, a.value), hn::And(hn::Eq(b.value, a.value), b_first));
  const auto take = hn::And(b_set, hn::Or(a_unset, better));
  return {hn::IfThenElse(take, b.value, a.value), hn::IfThenElse(hn::RebindMask(di, take), b.index, a.index)};
}

// The best of `lanes` (<= V * N) neighbouring slices, which start at x[0],
// x[1], ... and step `inner` along the axis. Two sets of bests, for the even
// and the odd steps, keep two compare-and-blend chains in flight.
template <int V, class D>
HWY_INLINE void ArgmaxLanes(D d, const float* x, int64_t length, int64_t inner, size_t lanes, int32_t* out) {
  const hn::RebindToSigned<D> di;
  const size_t N = hn::Lanes(d);
  Best<D> even[V], odd[V];
  for (int v = 0; v < V; ++v) {
    even[v] = odd[v] = {hn::Set(d, -std::numeric_limits<float>::infinity()), hn::Set(di, -1)};
  }
  auto load = [&](const float* row, int v) HWY_ATTR {
    const size_t first = static_cast<size_t>(v) * N;
    // (the bound only tells the compiler what it cannot see: lanes - first < N here)
    return first + N <= lanes ? hn::LoadU(d, row + first)
                              : LoadHead(d, row + first, HWY_MIN(lanes - first, hn::MaxLanes(d)));
  };
  int64_t k = 0;
  for (; k + 2 <= length; k += 2) {
    const float* row = x + k * inner;
    const auto k0 = hn::Set(di, static_cast<int32_t>(k)), k1 = hn::Set(di, static_cast<int32_t>(k + 1));
    for (int v = 0; v < V; ++v) {
      Take(d, load(row, v), k0, even[v]);
      Take(d, load(row + inner, v), k1, odd[v]);
    }
  }
  if (k < length) {
    const auto kv = hn::Set(di, static_cast<int32_t>(k));
    for (int v = 0; v < V; ++v) Take(d, load(x + k * inner, v), kv, even[v]);
  }
  HWY_ALIGN int32_t buf[4 * HWY_MAX_BYTES / sizeof(int32_t)];
  for (int v = 0; v < V; ++v) hn::Store(Merge(d, even[v], odd[v]).index, di, buf + static_cast<size_t>(v) * N);
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
