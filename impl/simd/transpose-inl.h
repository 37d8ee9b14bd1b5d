// An L x L tile of floats transposed in registers: Matmul's packing of W and
// the Transpose/Permute kernels share it; and 8 x 8 tiles of 16-bit patterns,
// one per 128-bit block, for the half twins of Transpose/Permute.

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

#if HWY_TARGET != HWY_SCALAR
// InterleaveLower and InterleaveUpper of a and b taken as lanes of TW (pairs
// or quads of D's lanes), within 128-bit blocks.
template <typename TW, class D>
HWY_INLINE hn::Vec<D> InterleaveLowerAs(D d, hn::Vec<D> a, hn::Vec<D> b) {
  const hn::Repartition<TW, D> dw;
  return hn::BitCast(d, hn::InterleaveLower(dw, hn::BitCast(dw, a), hn::BitCast(dw, b)));
}
template <typename TW, class D>
HWY_INLINE hn::Vec<D> InterleaveUpperAs(D d, hn::Vec<D> a, hn::Vec<D> b) {
  const hn::Repartition<TW, D> dw;
  return hn::BitCast(d, hn::InterleaveUpper(dw, hn::BitCast(dw, a), hn::BitCast(dw, b)));
}

// The first two steps of transposing rows r[0..kRows) (4 or 8) within
// 128-bit blocks: pairs of rows interleaved by lanes, then those pairs by
// pairs of lanes. u[4m + q] holds quarter q of each block of rows
// 4m..4m+3 transposed: its columns (1 float, 2 halves) one after the other,
// each as 4 lanes, one a row.
template <int kRows, class D>
HWY_INLINE void InterleaveTwice(D d, const hn::Vec<D>* r, hn::Vec<D>* u) {
  using TW = hwy::MakeWide<hn::TFromD<D>>;
  hn::Vec<D> t[kRows];
  for (int k = 0; k < kRows; k += 2) {
    t[k] = hn::InterleaveLower(d, r[k], r[k + 1]);
    t[k + 1] = hn::InterleaveUpper(d, r[k], r[k + 1]);
  }
  for (int k = 0; k < kRows; k += 4) {
    u[k] = InterleaveLowerAs<TW>(d, t[k], t[k + 2]);
    u[k + 1] = InterleaveUpperAs<TW>(d, t[k], t[k + 2]);
    u[k + 2] = InterleaveLowerAs<TW>(d, t[k + 1], t[k + 3]);
    u[k + 3] = InterleaveUpperAs<TW>(d, t[k + 1], t[k + 3]);
  }
}
#endif

// cols[j][i] = rows[i][j] for the L x L tile: D is SquareTag, or a 4-lane
// tag on any target but SCALAR (4 x 4 tiles where 8 x 8 do not fit).
template <class D>
HWY_INLINE void Transpose(D d, const hn::Vec<D>* r, hn::Vec<D>* c) {
#if HWY_TARGET == HWY_SCALAR
  (void)d;
  c[0] = r[0];
#else
#if HWY_TARGET <= HWY_AVX2
  if constexpr (hn::MaxLanes(D()) == 8) {
    // 8 x 8: the 4 x 4 transposes of both 128-bit halves, then the halves swapped.
    hn::Vec<D> u[8];
    InterleaveTwice<8>(d, r, u);
    for (int k = 0; k < 4; ++k) {
      c[k] = hn::ConcatLowerLower(d, u[4 + k], u[k]);
      c[4 + k] = hn::ConcatUpperUpper(d, u[4 + k], u[k]);
    }
    return;
  }
#endif
  InterleaveTwice<4>(d, r, c);
#endif
}

#if HWY_TARGET != HWY_SCALAR
// Tiles of 16-bit patterns: 8 columns of x by 8 rows per 128-bit block of
// the vector (32 x 8 on AVX3, 16 x 8 on AVX2, 8 x 8 on SSSE3 and SSE4),
// whose transpose is one 8 x 8 transpose in each block and no lane
// crossing: vector k comes back as column k of the tile, its block b rows
// 8b..8b+7, which is a run of output row k (on AVX3 a whole 64-byte line).
#if HWY_TARGET <= HWY_AVX3
using HalfTileTag = hn::CappedTag<uint16_t, 32>;
#else
using HalfTileTag = hn::CappedTag<uint16_t, 16>;
#endif

// Vector k of a tile whose first row starts at p, rows `xs` apart: block b
// is 8 values of row 8b + k (one 128-bit load each, inserted).
template <class D>
HWY_INLINE hn::Vec<D> LoadHalfTileRow(D d, const uint16_t* HWY_RESTRICT p, int64_t xs) {
  if constexpr (hn::MaxLanes(D()) <= 8) {
    return hn::LoadU(d, p);
  } else {
    const hn::Half<D> dh;
    constexpr int64_t kHalfRows = static_cast<int64_t>(hn::MaxLanes(D())) / 2;  // the lower half's rows
    return hn::Combine(d, LoadHalfTileRow(dh, p + kHalfRows * xs, xs), LoadHalfTileRow(dh, p, xs));
  }
}

// c[k] block b = (r[0..7] block b)'s lane k: the 8 x 8 transpose of 16-bit
// lanes within each 128-bit block, by 16, 32 and 64 bits.
template <class D>
HWY_INLINE void TransposeBlocks8x8(D d, const hn::Vec<D>* r, hn::Vec<D>* c) {
  hn::Vec<D> u[8];  // columns 0-1, 2-3, 4-5, 6-7 of rows 0-3, then of rows 4-7
  InterleaveTwice<8>(d, r, u);
  for (int k = 0; k < 4; ++k) {
    c[2 * k] = InterleaveLowerAs<uint64_t>(d, u[k], u[4 + k]);
    c[2 * k + 1] = InterleaveUpperAs<uint64_t>(d, u[k], u[4 + k]);
  }
}
#endif

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TRANSPOSE_INL_H_
