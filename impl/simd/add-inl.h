// Residual add, y = a + b: one correctly rounded add per element. y may equal
// a (no HWY_RESTRICT): element i is read before it is written.

#if defined(KONFORM_SIMD_ADD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_ADD_INL_H_
#undef KONFORM_SIMD_ADD_INL_H_
#else
#define KONFORM_SIMD_ADD_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline void AddF32(const float* a, const float* b, float* y, int64_t n) {
  if (n <= 0) return;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + 4 * N <= count; i += 4 * N) {
    const auto y0 = hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i));
    const auto y1 = hn::Add(hn::LoadU(d, a + i + N), hn::LoadU(d, b + i + N));
    const auto y2 = hn::Add(hn::LoadU(d, a + i + 2 * N), hn::LoadU(d, b + i + 2 * N));
    const auto y3 = hn::Add(hn::LoadU(d, a + i + 3 * N), hn::LoadU(d, b + i + 3 * N));
    hn::StoreU(y0, d, y + i);
    hn::StoreU(y1, d, y + i + N);
    hn::StoreU(y2, d, y + i + 2 * N);
    hn::StoreU(y3, d, y + i + 3 * N);
  }
  for (; i + N <= count; i += N) {
    hn::StoreU(hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, y + i);
  }
  if (i < count) {
    const size_t m = count - i;
    StoreHead(hn::Add(LoadHead(d, a + i, m), LoadHead(d, b + i, m)), d, y + i, m);
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_ADD_INL_H_
