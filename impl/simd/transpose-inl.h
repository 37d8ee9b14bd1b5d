// An L x L tile of floats transposed in registers: Matmul's packing of W and
// the Transpose/Permute kernels share it.

#if defined(KONFORM_SIMD_TRANSPOSE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_TRANSPOSE_INL_H_
#undef KONFORM_SIMD_TRANSPOSE_INL_H_
#else
#define KONFORM_SIMD_TRANSPOSE_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Tiles of L x L floats (L = 8 on AVX2 and AVX3, 4 on SSE4, 1 on SCALAR),
// transposed in registers.
using SquareTag = hn::CappedTag<float, 8>;

// cols[j][i] = rows[i][j] for the L x L tile: D is SquareTag, or a 4-lane
// tag on any target but SCALAR (4 x 4 tiles where 8 x 8 do not fit).
template <class D>
HWY_INLINE void Transpose(D d, const hn::Vec<D>* r, hn::Vec<D>* c) {
#if HWY_TARGET == HWY_SCALAR
  (void)d;
  c[0] = r[0];
#else
  const hn::Repartition<double, D> dd;
  // Pairs of rows interleaved by 32 bits, then by 64 bits, within 128-bit blocks.
  auto lo64 = [&](hn::Vec<D> a, hn::Vec<D> b) {
    return hn::BitCast(d, hn::InterleaveLower(dd, hn::BitCast(dd, a), hn::BitCast(dd, b)));
  };
  auto hi64 = [&](hn::Vec<D> a, hn::Vec<D> b) {
    return hn::BitCast(d, hn::InterleaveUpper(dd, hn::BitCast(dd, a), hn::BitCast(dd, b)));
  };
  const auto t0 = hn::InterleaveLower(d, r[0], r[1]), t1 = hn::InterleaveUpper(d, r[0], r[1]);
  const auto t2 = hn::InterleaveLower(d, r[2], r[3]), t3 = hn::InterleaveUpper(d, r[2], r[3]);
#if HWY_TARGET <= HWY_AVX2
  if constexpr (hn::MaxLanes(D()) == 8) {
    // 8 x 8: the 4 x 4 transposes of both 128-bit halves, then the halves swapped.
    const auto t4 = hn::InterleaveLower(d, r[4], r[5]), t5 = hn::InterleaveUpper(d, r[4], r[5]);
    const auto t6 = hn::InterleaveLower(d, r[6], r[7]), t7 = hn::InterleaveUpper(d, r[6], r[7]);
    const auto u0 = lo64(t0, t2), u1 = hi64(t0, t2), u2 = lo64(t1, t3), u3 = hi64(t1, t3);
    const auto u4 = lo64(t4, t6), u5 = hi64(t4, t6), u6 = lo64(t5, t7), u7 = hi64(t5, t7);
    c[0] = hn::ConcatLowerLower(d, u4, u0);
    c[1] = hn::ConcatLowerLower(d, u5, u1);
    c[2] = hn::ConcatLowerLower(d, u6, u2);
    c[3] = hn::ConcatLowerLower(d, u7, u3);
    c[4] = hn::ConcatUpperUpper(d, u4, u0);
    c[5] = hn::ConcatUpperUpper(d, u5, u1);
    c[6] = hn::ConcatUpperUpper(d, u6, u2);
    c[7] = hn::ConcatUpperUpper(d, u7, u3);
    return;
  }
#endif
  c[0] = lo64(t0, t2);
  c[1] = hi64(t0, t2);
  c[2] = lo64(t1, t3);
  c[3] = hi64(t1, t3);
#endif
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TRANSPOSE_INL_H_
