// The reductions of the norm kernels: a sum over a contiguous range in an
// order fixed by its length and the target alone, and the passes that apply
// a row's statistics.
//
// Sum order: blocks of 16 vectors are summed in float by eight accumulators
// (each lane adds two terms, then three pairwise adds: a relative error of at
// most ~4 u of the sum of |terms| of the block, whatever n is), and each
// block's partial sums are added in double. Eight independent chains keep
// two FMA pipes busy through their four-cycle latency. The order depends on n alone, so
// a row's bits never depend on how many rows share the call.

#if defined(KONFORM_SIMD_NORM_REDUCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_NORM_REDUCE_INL_H_
#undef KONFORM_SIMD_NORM_REDUCE_INL_H_
#else
#define KONFORM_SIMD_NORM_REDUCE_INL_H_
#endif

#include <cstddef>
#include <cstdint>

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
    auto a0 = term(d, source.Full(d, i), hn::Zero(d)), a1 = term(d, source.Full(d, i + N), hn::Zero(d));
    auto a2 = term(d, source.Full(d, i + 2 * N), hn::Zero(d)), a3 = term(d, source.Full(d, i + 3 * N), hn::Zero(d));
    auto a4 = term(d, source.Full(d, i + 4 * N), hn::Zero(d)), a5 = term(d, source.Full(d, i + 5 * N), hn::Zero(d));
    auto a6 = term(d, source.Full(d, i + 6 * N), hn::Zero(d)), a7 = term(d, source.Full(d, i + 7 * N), hn::Zero(d));
    a0 = term(d, source.Full(d, i + 8 * N), a0);
    a1 = term(d, source.Full(d, i + 9 * N), a1);
    a2 = term(d, source.Full(d, i + 10 * N), a2);
    a3 = term(d, source.Full(d, i + 11 * N), a3);
    a4 = term(d, source.Full(d, i + 12 * N), a4);
    a5 = term(d, source.Full(d, i + 13 * N), a5);
    a6 = term(d, source.Full(d, i + 14 * N), a6);
    a7 = term(d, source.Full(d, i + 15 * N), a7);
    acc =
        AddBlock(d, hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7))), acc);
  }
  if (i < n) {  // the last, partial block: each accumulator adds at most two terms, as above
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    auto a4 = hn::Zero(d), a5 = hn::Zero(d), a6 = hn::Zero(d), a7 = hn::Zero(d);
    if (i + 8 * N <= n) {
      a0 = term(d, source.Full(d, i), a0);
      a1 = term(d, source.Full(d, i + N), a1);
      a2 = term(d, source.Full(d, i + 2 * N), a2);
      a3 = term(d, source.Full(d, i + 3 * N), a3);
      a4 = term(d, source.Full(d, i + 4 * N), a4);
      a5 = term(d, source.Full(d, i + 5 * N), a5);
      a6 = term(d, source.Full(d, i + 6 * N), a6);
      a7 = term(d, source.Full(d, i + 7 * N), a7);
      i += 8 * N;
    }
    // At most seven whole vectors and a partial one are left.
    if (i + N <= n) a0 = term(d, source.Full(d, i), a0), i += N;
    if (i + N <= n) a1 = term(d, source.Full(d, i), a1), i += N;
    if (i + N <= n) a2 = term(d, source.Full(d, i), a2), i += N;
    if (i + N <= n) a3 = term(d, source.Full(d, i), a3), i += N;
    if (i + N <= n) a4 = term(d, source.Full(d, i), a4), i += N;
    if (i + N <= n) a5 = term(d, source.Full(d, i), a5), i += N;
    if (i + N <= n) a6 = term(d, source.Full(d, i), a6), i += N;
    if (i < n) a7 = term(d, source.Part(d, i, n - i), a7);
    acc =
        AddBlock(d, hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7))), acc);
  }
  return hn::GetLane(hn::SumOfLanes(dd, acc));
}

// Sum of x and sum of x^2 over x[0, n) in one traversal, in the order of
// BlockedSum with four accumulators of each (each lane adds four terms per
// block, then two pairwise adds: <= ~5 u of the sums of |terms|).
struct SumAndSquares {
  double sum, sq;
};
template <class D>
HWY_INLINE SumAndSquares BlockedSumAndSquares(D d, const float* x, size_t n) {
  const size_t N = hn::Lanes(d);
  const DoubleTag<D> dd;
  auto acc_s = hn::Zero(dd), acc_q = hn::Zero(dd);
  size_t i = 0;
  while (i < n) {
    auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
    auto q0 = hn::Zero(d), q1 = hn::Zero(d), q2 = hn::Zero(d), q3 = hn::Zero(d);
    const size_t end = i + 16 * N <= n ? i + 16 * N : n;  // one block, or the partial last one
    for (; i + 4 * N <= end; i += 4 * N) {
      const auto v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + N);
      const auto v2 = hn::LoadU(d, x + i + 2 * N), v3 = hn::LoadU(d, x + i + 3 * N);
      s0 = hn::Add(s0, v0), q0 = hn::MulAdd(v0, v0, q0);
      s1 = hn::Add(s1, v1), q1 = hn::MulAdd(v1, v1, q1);
      s2 = hn::Add(s2, v2), q2 = hn::MulAdd(v2, v2, q2);
      s3 = hn::Add(s3, v3), q3 = hn::MulAdd(v3, v3, q3);
    }
    if (i + N <= end) {
      const auto v = hn::LoadU(d, x + i);
      s0 = hn::Add(s0, v), q0 = hn::MulAdd(v, v, q0), i += N;
    }
    if (i + N <= end) {
      const auto v = hn::LoadU(d, x + i);
      s1 = hn::Add(s1, v), q1 = hn::MulAdd(v, v, q1), i += N;
    }
    if (i + N <= end) {
      const auto v = hn::LoadU(d, x + i);
      s2 = hn::Add(s2, v), q2 = hn::MulAdd(v, v, q2), i += N;
    }
    if (i < end) {
      const auto v = LoadHead(d, x + i, end - i);
      s3 = hn::Add(s3, v), q3 = hn::MulAdd(v, v, q3), i = end;
    }
    acc_s = AddBlock(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3)), acc_s);
    acc_q = AddBlock(d, hn::Add(hn::Add(q0, q1), hn::Add(q2, q3)), acc_q);
  }
  return {hn::GetLane(hn::SumOfLanes(dd, acc_s)), hn::GetLane(hn::SumOfLanes(dd, acc_q))};
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

// The same calls from the start of the range forwards, four vectors a step.
template <class D, class Apply>
HWY_INLINE void Forwards(D d, size_t n, const Apply& apply) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    apply.Full(d, i);
    apply.Full(d, i + N);
    apply.Full(d, i + 2 * N);
    apply.Full(d, i + 3 * N);
  }
  for (; i + N <= n; i += N) apply.Full(d, i);
  if (i < n) apply.Part(d, i, n - i);
}

}  // namespace norm
}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_NORM_REDUCE_INL_H_
