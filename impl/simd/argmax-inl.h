// Argmax with the oracle's strict > forward scan: lowest index on ties, NaN
// skipped, -1 when there is no number.
//
// Vectorized in two steps. (1) Blocks of 1024 floats (at 16 lanes): per-lane
// maxima that skip NaN (see MaxSkipNaN), reduced to the block's maximum; a
// block replaces the best only if its maximum is strictly greater, so the
// earliest block holding the overall maximum wins. (2) The first index, from
// that block on, whose value equals the maximum. Equality also matches -0
// against +0, exactly as strict > keeps whichever zero came first.

#if defined(KONFORM_SIMD_ARGMAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_ARGMAX_INL_H_
#undef KONFORM_SIMD_ARGMAX_INL_H_
#else
#define KONFORM_SIMD_ARGMAX_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lane-wise max that keeps m (never NaN) when v is NaN; Argmax here and along
// an axis (tensor_argmax-inl.h) both use it. x86's maxps returns its second
// operand when either is NaN, which is exactly that in one instruction; the
// portable targets (SCALAR, EMU128) and the others compare and select. (Where
// v and m are zeros of opposite signs either may come back: the searches for
// the maximum's first index compare with ==, which does not see the sign.)
template <class D>
HWY_INLINE hn::Vec<D> MaxSkipNaN(hn::Vec<D> v, hn::Vec<D> m) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  return hn::Max(v, m);
#else
  return hn::IfThenElse(hn::Gt(v, m), v, m);
#endif
}

// The largest number in x[begin, end), -inf if there is none.
template <class D>
HWY_INLINE float BlockMax(D d, const float* x, size_t begin, size_t end) {
  const size_t N = hn::Lanes(d);
  const auto neg_inf = hn::Set(d, -std::numeric_limits<float>::infinity());
  auto m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  size_t i = begin;
  for (; i + 4 * N <= end; i += 4 * N) {
    m0 = MaxSkipNaN<D>(hn::LoadU(d, x + i), m0);
    m1 = MaxSkipNaN<D>(hn::LoadU(d, x + i + N), m1);
    m2 = MaxSkipNaN<D>(hn::LoadU(d, x + i + 2 * N), m2);
    m3 = MaxSkipNaN<D>(hn::LoadU(d, x + i + 3 * N), m3);
  }
  for (; i + N <= end; i += N) m0 = MaxSkipNaN<D>(hn::LoadU(d, x + i), m0);
  if (i < end) {  // lanes past the end read as -inf, which never wins
    const size_t k = end - i;
    m1 = MaxSkipNaN<D>(hn::IfThenElse(hn::FirstN(d, k), LoadHead(d, x + i, k), neg_inf), m1);
  }
  // No NaN left, so Max is well defined (up to the sign of zero, which the
  // equality search below does not see).
  const auto m = hn::Max(hn::Max(m0, m1), hn::Max(m2, m3));
  return MaxLane(d, m);
}

inline int32_t Argmax(const float* x, int64_t n) {
  if (n <= 0) return -1;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  const size_t block = 64 * N;  // short enough that the rescan costs little
  float best = -std::numeric_limits<float>::infinity();
  size_t best_begin = 0;
  for (size_t b = 0; b < count; b += block) {
    const float m = BlockMax(d, x, b, HWY_MIN(count, b + block));
    if (m > best) {
      best = m;
      best_begin = b;
    }
  }
  // When best is -inf the first -inf may lie after best_begin's block: scan on.
  const auto vbest = hn::Set(d, best);
  size_t i = best_begin;
  for (; i + 4 * N <= count; i += 4 * N) {  // four vectors per test, then the one
    const auto e0 = hn::Eq(hn::LoadU(d, x + i), vbest);
    const auto e1 = hn::Eq(hn::LoadU(d, x + i + N), vbest);
    const auto e2 = hn::Eq(hn::LoadU(d, x + i + 2 * N), vbest);
    const auto e3 = hn::Eq(hn::LoadU(d, x + i + 3 * N), vbest);
    if (!hn::AllFalse(d, hn::Or(hn::Or(e0, e1), hn::Or(e2, e3)))) break;
  }
  for (; i + N <= count; i += N) {
    const intptr_t k = hn::FindFirstTrue(d, hn::Eq(hn::LoadU(d, x + i), vbest));
    if (k >= 0) return static_cast<int32_t>(i + static_cast<size_t>(k));
  }
  for (; i < count; ++i) {
    if (x[i] == best) return static_cast<int32_t>(i);
  }
  return -1;
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_ARGMAX_INL_H_
