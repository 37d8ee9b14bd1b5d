// RMSNorm per row: y = x / sqrt(sum(x^2)/d + eps) * w.
//
// The sum of squares runs in an order fixed by d and the target alone, so a
// row's bits never depend on how many rows share the call. Blocks of 16
// vectors are summed in float by four accumulators (a lane adds at most four
// squares, then two pairwise adds: a relative error of a few u at worst, for
// any d), and each block's partial sums are added in double.

#if defined(KONFORM_SIMD_RMSNORM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_RMSNORM_INL_H_
#undef KONFORM_SIMD_RMSNORM_INL_H_
#else
#define KONFORM_SIMD_RMSNORM_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
// One lane: the float block sum promotes whole.
template <class D>
HWY_INLINE hn::Vec<hn::Rebind<double, D>> PromoteBlock(D d, hn::Vec<D> block,
                                                       hn::Vec<hn::Rebind<double, D>> acc) {
  return hn::Add(acc, hn::PromoteTo(hn::Rebind<double, D>(), block));
}
template <class D>
using SumTag = hn::Rebind<double, D>;
#else
// Both halves of the float block sum, promoted to double and added.
template <class D>
HWY_INLINE hn::Vec<hn::Repartition<double, D>> PromoteBlock(D d, hn::Vec<D> block,
                                                            hn::Vec<hn::Repartition<double, D>> acc) {
  const hn::Repartition<double, D> dd;
  const hn::Half<D> dh;
  acc = hn::Add(acc, hn::PromoteTo(dd, hn::LowerHalf(dh, block)));
  return hn::Add(acc, hn::PromoteTo(dd, hn::UpperHalf(dh, block)));
}
template <class D>
using SumTag = hn::Repartition<double, D>;
#endif

// Sum of x[i]^2, i < n, in the fixed blocked order described above.
template <class D>
HWY_INLINE double SumOfSquaresBlocked(D d, const float* x, size_t n) {
  const size_t N = hn::Lanes(d);
  const SumTag<D> dd;
  auto acc = hn::Zero(dd);
  size_t i = 0;
  for (; i + 16 * N <= n; i += 16 * N) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (size_t j = i; j < i + 16 * N; j += 4 * N) {
      const auto v0 = hn::LoadU(d, x + j), v1 = hn::LoadU(d, x + j + N);
      const auto v2 = hn::LoadU(d, x + j + 2 * N), v3 = hn::LoadU(d, x + j + 3 * N);
      a0 = hn::MulAdd(v0, v0, a0);
      a1 = hn::MulAdd(v1, v1, a1);
      a2 = hn::MulAdd(v2, v2, a2);
      a3 = hn::MulAdd(v3, v3, a3);
    }
    acc = PromoteBlock(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), acc);
  }
  if (i < n) {  // the last, partial block: same accumulators, same bound
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (; i + 4 * N <= n; i += 4 * N) {
      const auto v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + N);
      const auto v2 = hn::LoadU(d, x + i + 2 * N), v3 = hn::LoadU(d, x + i + 3 * N);
      a0 = hn::MulAdd(v0, v0, a0);
      a1 = hn::MulAdd(v1, v1, a1);
      a2 = hn::MulAdd(v2, v2, a2);
      a3 = hn::MulAdd(v3, v3, a3);
    }
    if (i + N <= n) {
      const auto v = hn::LoadU(d, x + i);
      a0 = hn::MulAdd(v, v, a0);
      i += N;
    }
    if (i + N <= n) {
      const auto v = hn::LoadU(d, x + i);
      a1 = hn::MulAdd(v, v, a1);
      i += N;
    }
    if (i + N <= n) {
      const auto v = hn::LoadU(d, x + i);
      a2 = hn::MulAdd(v, v, a2);
      i += N;
    }
    if (i < n) {
      const auto v = LoadHead(d, x + i, n - i);
      a3 = hn::MulAdd(v, v, a3);
    }
    acc = PromoteBlock(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), acc);
  }
  return hn::GetLane(hn::SumOfLanes(dd, acc));
}

// The same sum with every square formed in double: the rare rows whose float
// squares overflow or lose bits to underflow.
inline double SumOfSquaresDouble(const float* x, size_t n) {
  double acc = 0.0;
  for (size_t i = 0; i < n; ++i) acc += static_cast<double>(x[i]) * x[i];
  return acc;
}

// Below this mean square, float squares may be subnormal and inexact.
constexpr double kRmsUnderflow = 0x1p-100;

template <class D>
HWY_INLINE void RmsNormRow(D d, const float* x, const float* w, float* y, size_t n, float eps) {
  const size_t N = hn::Lanes(d);
  double sum = SumOfSquaresBlocked(d, x, n);
  if (!(sum < HUGE_VAL) || sum < kRmsUnderflow * static_cast<double>(n)) {
    sum = SumOfSquaresDouble(x, n);
  }
  // The whole sum is known before y is written: y == x is safe.
  const float inv = static_cast<float>(1.0 / std::sqrt(sum / static_cast<double>(n) + eps));
  const auto vinv = hn::Set(d, inv);
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto y0 = hn::Mul(hn::Mul(hn::LoadU(d, x + i), vinv), hn::LoadU(d, w + i));
    const auto y1 = hn::Mul(hn::Mul(hn::LoadU(d, x + i + N), vinv), hn::LoadU(d, w + i + N));
    hn::StoreU(y0, d, y + i);
    hn::StoreU(y1, d, y + i + N);
  }
  if (i + N <= n) {
    hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, x + i), vinv), hn::LoadU(d, w + i)), d, y + i);
    i += N;
  }
  if (i < n) {
    const size_t m = n - i;
    StoreHead(hn::Mul(hn::Mul(LoadHead(d, x + i, m), vinv), LoadHead(d, w + i, m)), d, y + i, m);
  }
}

// No HWY_RESTRICT: y may equal x.
inline void RmsNorm(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  if (rows <= 0 || d <= 0) return;
  const hn::ScalableTag<float> df;
  for (int64_t r = 0; r < rows; ++r) {
    RmsNormRow(df, x + r * d, w, y + r * d, static_cast<size_t>(d), eps);
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_RMSNORM_INL_H_
