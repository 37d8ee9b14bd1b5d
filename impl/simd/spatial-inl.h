// The vector part of PatchEmbed (tinyllm/spatial.h) that is its own: the
// bias added to every token's row of D features. The patch gather is
// Permute's Move (tensor_move-inl.h) and the product is tl_matmul_f32.

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

}  // namespace konform::simd::HWY_NAMESPACE::spatial
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_SPATIAL_INL_H_
