// The reductions of the norm kernels: a sum over a contiguous range in an
// order fixed by its length and the target alone, and the passes that apply
// a row's statistics.
//
// Sum order: blocks of 16 vectors are summed in float by four accumulators
// (each lane adds four terms, then two pairwise adds: a relative error of at
// most ~5 u of the sum of |terms| of the block, whatever n is), and each
// block's partial sums are added in double. The order depends on n alone, so
// a row's bits never depend on how many rows share the call.

#if defined(KONFORM_SIMD_NORM_REDUCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_NORM_REDUCE_INL_H_
#undef KONFORM_SIMD_NORM_REDUCE_INL_H_
#else
#define KONFORM_SIMD_NORM_REDUCE_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace norm {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
template <class D>
using DoubleTag = hn::Rebind<double, D>;
// One lane: the block's float sum promotes whole.
template <class D>
HWY_INLINE hn::Vec<DoubleTag<D>> AddBlock(D, hn::Vec<D> block, hn::Vec<DoubleTag<D>> acc) {
  return hn::Add(acc, hn::PromoteTo(DoubleTag<D>(), block));
}
#else
template <class D>
using DoubleTag = hn::Repartition<double, D>;
// Both halves of the block's float sums, promoted to double and added.
template <class D>
HWY_INLINE hn::Vec<DoubleTag<D>> AddBlock(D d, hn::Vec<D> block, hn::Vec<DoubleTag<D>> acc) {
  const DoubleTag<D> dd;
  const hn::Half<D> dh;
  acc = hn::Add(acc, hn::PromoteTo(dd, hn::LowerHalf(dh, block)));
  return hn::Add(acc, hn::PromoteTo(dd, hn::UpperHalf(dh, block)));
}
#endif

// Sum over the vectors of a range of `n` floats of term(source(i)):
// source.Full(d, i) gives the vector at element i, source.Part(d, i, m) the
// first m < Lanes(d) elements there with the other lanes set so that term
// adds nothing; term(d, v, acc) returns acc plus v's contribution.
template <class D, class Source, class Term>
HWY_INLINE double BlockedSum(D d, size_t n, const Source& source, const Term& term) {
  const size_t N = hn::Lanes(d);
  const DoubleTag<D> dd;
  auto acc = hn::Zero(dd);
  size_t i = 0;
  for (; i + 16 * N <= n; i += 16 * N) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (size_t j = i; j < i + 16 * N; j += 4 * N) {
      a0 = term(d, source.Full(d, j), a0);
      a1 = term(d, source.Full(d, j + N), a1);
      a2 = term(d, source.Full(d, j + 2 * N), a2);
      a3 = term(d, source.Full(d, j + 3 * N), a3);
    }
    acc = AddBlock(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), acc);
  }
  if (i < n) {  // the last, partial block: same accumulators, same bound
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (; i + 4 * N <= n; i += 4 * N) {
      a0 = term(d, source.Full(d, i), a0);
      a1 = term(d, source.Full(d, i + N), a1);
      a2 = term(d, source.Full(d, i + 2 * N), a2);
      a3 = term(d, source.Full(d, i + 3 * N), a3);
    }
    if (i + N <= n) a0 = term(d, source.Full(d, i), a0), i += N;
    if (i + N <= n) a1 = term(d, source.Full(d, i), a1), i += N;
    if (i + N <= n) a2 = term(d, source.Full(d, i), a2), i += N;
    if (i < n) a3 = term(d, source.Part(d, i, n - i), a3);
    acc = AddBlock(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), acc);
  }
  return hn::GetLane(hn::SumOfLanes(dd, acc));
}

// The terms.
struct Plain {  // x
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D, hn::Vec<D> v, hn::Vec<D> acc) const {
    return hn::Add(acc, v);
  }
};
struct Square {  // x^2
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D, hn::Vec<D> v, hn::Vec<D> acc) const {
    return hn::MulAdd(v, v, acc);
  }
};
struct CentredSquare {  // (x - mean)^2
  float mean;
  template <class D>
  HWY_INLINE hn::Vec<D> operator()(D d, hn::Vec<D> v, hn::Vec<D> acc) const {
    const auto c = hn::Sub(v, hn::Set(d, mean));
    return hn::MulAdd(c, c, acc);
  }
};

// The sources.
struct Array {  // x[i], padded with `pad` (0, or the mean for CentredSquare)
  const float* x;
  float pad;
  template <class D>
  HWY_INLINE hn::Vec<D> Full(D d, size_t i) const {
    return hn::LoadU(d, x + i);
  }
  template <class D>
  HWY_INLINE hn::Vec<D> Part(D d, size_t i, size_t m) const {
    return hn::IfThenElse(hn::FirstN(d, m), LoadHead(d, x + i, m), hn::Set(d, pad));
  }
};

// Calls apply.Full(d, i) for every whole vector and apply.Part(d, i, m) for
// the last m < Lanes(d) elements, from the end of the range backwards: the
// pass that writes a row starts where the statistics pass ended, on the part
// of the row still in L1 when the row is longer than L1.
template <class D, class Apply>
HWY_INLINE void Backwards(D d, size_t n, const Apply& apply) {
  const size_t N = hn::Lanes(d);
  size_t i = n - n % N;
  if (i < n) apply.Part(d, i, n - i);
  for (; i >= 2 * N; i -= 2 * N) {
    apply.Full(d, i - N);
    apply.Full(d, i - 2 * N);
  }
  if (i >= N) apply.Full(d, i - N);
}

}  // namespace norm
}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_NORM_REDUCE_INL_H_
