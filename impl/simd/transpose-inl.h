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
    constexpr int64_t kHalfRows = static_cast<int64_t>(hn::MaxLanes(D())) / 2;  // 8 rows a block
    return hn::Combine(d, LoadHalfTileRow(dh, p + kHalfRows * xs, xs), LoadHalfTileRow(dh, p, xs));
  }
}

// c[k] block b = (r[0..7] block b)'s lane k: the 8 x 8 transpose of 16-bit
// lanes within each 128-bit block, by 16, 32 and 64 bits.
template <class D>
HWY_INLINE void TransposeBlocks8x8(D d, const hn::Vec<D>* r, hn::Vec<D>* c) {
  const hn::Repartition<uint32_t, D> d32;
  const hn::Repartition<uint64_t, D> d64;
  auto lo32 = [&](hn::Vec<D> a, hn::Vec<D> b) {
    return hn::BitCast(d, hn::InterleaveLower(d32, hn::BitCast(d32, a), hn::BitCast(d32, b)));
  };
  auto hi32 = [&](hn::Vec<D> a, hn::Vec<D> b) {
    return hn::BitCast(d, hn::InterleaveUpper(d32, hn::BitCast(d32, a), hn::BitCast(d32, b)));
  };
  auto lo64 = [&](hn::Vec<D> a, hn::Vec<D> b) {
    return hn::BitCast(d, hn::InterleaveLower(d64, hn::BitCast(d64, a), hn::BitCast(d64, b)));
  };
  auto hi64 = [&](hn::Vec<D> a, hn::Vec<D> b) {
    return hn::BitCast(d, hn::InterleaveUpper(d64, hn::BitCast(d64, a), hn::BitCast(d64, b)));
  };
  // Columns 0-3 and 4-7 of rows 0-1, 2-3, 4-5, 6-7, paired.
  const auto t0 = hn::InterleaveLower(d, r[0], r[1]), t1 = hn::InterleaveUpper(d, r[0], r[1]);
  const auto t2 = hn::InterleaveLower(d, r[2], r[3]), t3 = hn::InterleaveUpper(d, r[2], r[3]);
  const auto t4 = hn::InterleaveLower(d, r[4], r[5]), t5 = hn::InterleaveUpper(d, r[4], r[5]);
  const auto t6 = hn::InterleaveLower(d, r[6], r[7]), t7 = hn::InterleaveUpper(d, r[6], r[7]);
  // Columns 0-1, 2-3, 4-5, 6-7 of rows 0-3 and of rows 4-7.
  const auto u0 = lo32(t0, t2), u1 = hi32(t0, t2), u2 = lo32(t1, t3), u3 = hi32(t1, t3);
  const auto u4 = lo32(t4, t6), u5 = hi32(t4, t6), u6 = lo32(t5, t7), u7 = hi32(t5, t7);
  c[0] = lo64(u0, u4);
  c[1] = hi64(u0, u4);
  c[2] = lo64(u1, u5);
  c[3] = hi64(u1, u5);
  c[4] = lo64(u2, u6);
  c[5] = hi64(u2, u6);
  c[6] = lo64(u3, u7);
  c[7] = hi64(u3, u7);
}
#endif

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TRANSPOSE_INL_H_
