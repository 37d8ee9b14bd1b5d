// The vector parts of tinyllm/spatial.h that are their own: PatchEmbed's
// bias added to every token's row of D features (its patch gather is
// Permute's Move, tensor_move-inl.h, its product tl_matmul_f32), and
// Interpolate's rows: gathers through per-column tap tables (nearest,
// bilinear) and column sums of a window's rows (area). The tables hold
// whole vectors: their length is padded to a multiple of the lanes, the
// padding pointing at column 0.

#if defined(KONFORM_SIMD_SPATIAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_SPATIAL_INL_H_
#undef KONFORM_SIMD_SPATIAL_INL_H_
#else
#define KONFORM_SIMD_SPATIAL_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE::spatial {
namespace hn = hwy::HWY_NAMESPACE;

// y[m, d] += bias[d] for m < rows, d < D: one rounding per element.
inline void AddBias(float* HWY_RESTRICT y, const float* HWY_RESTRICT bias, int64_t rows, int64_t D) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(D);
  for (int64_t m = 0; m < rows; ++m) {
    float* row = y + m * D;
    size_t k = 0;
    for (; k + N <= n; k += N) hn::StoreU(hn::Add(hn::LoadU(d, row + k), hn::LoadU(d, bias + k)), d, row + k);
    if (k < n) StoreHead(hn::Add(LoadHead(d, row + k, n - k), LoadHead(d, bias + k, n - k)), d, row + k, n - k);
  }
}

// y[k] = row[ix[k]] for k < n: a copy, bits kept.
inline void NearestRow(const float* HWY_RESTRICT row, const int32_t* HWY_RESTRICT ix, float* HWY_RESTRICT y, size_t n) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t N = hn::Lanes(d);
  size_t k = 0;
  for (; k + N <= n; k += N) hn::StoreU(hn::GatherIndex(d, row, hn::LoadU(di, ix + k)), d, y + k);
  if (k < n) StoreHead(hn::GatherIndex(d, row, hn::LoadU(di, ix + k)), d, y + k, n - k);
}

// y[k] = l0y (l0x[k] r0[i0[k]] + l1x[k] r0[i1[k]]) + l1y (the same on r1),
// each product formed and rounded, no fused multiply-add.
inline void BilinearRow(const float* HWY_RESTRICT r0, const float* HWY_RESTRICT r1, const int32_t* HWY_RESTRICT i0,
                        const int32_t* HWY_RESTRICT i1, const float* HWY_RESTRICT l0x, const float* HWY_RESTRICT l1x,
                        float l0y, float l1y, float* HWY_RESTRICT y, size_t n) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t N = hn::Lanes(d);
  const auto w0 = hn::Set(d, l0y), w1 = hn::Set(d, l1y);
  for (size_t k = 0; k < n; k += N) {
    const auto a = hn::LoadU(di, i0 + k), b = hn::LoadU(di, i1 + k);
    const auto u0 = hn::LoadU(d, l0x + k), u1 = hn::LoadU(d, l1x + k);
    const auto top = hn::Add(hn::Mul(u0, hn::GatherIndex(d, r0, a)), hn::Mul(u1, hn::GatherIndex(d, r0, b)));
    const auto bottom = hn::Add(hn::Mul(u0, hn::GatherIndex(d, r1, a)), hn::Mul(u1, hn::GatherIndex(d, r1, b)));
    const auto v = hn::Add(hn::Mul(w0, top), hn::Mul(w1, bottom));
    if (k + N <= n) {
      hn::StoreU(v, d, y + k);
    } else {
      StoreHead(v, d, y + k, n - k);
    }
  }
}

// acc[k] += row[k] for k < n.
inline void AddRow(float* HWY_RESTRICT acc, const float* HWY_RESTRICT row, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t k = 0;
  for (; k + N <= n; k += N) hn::StoreU(hn::Add(hn::LoadU(d, acc + k), hn::LoadU(d, row + k)), d, acc + k);
  for (; k < n; ++k) acc[k] += row[k];
}

}  // namespace konform::simd::HWY_NAMESPACE::spatial
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_SPATIAL_INL_H_
