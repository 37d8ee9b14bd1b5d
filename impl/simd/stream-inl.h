// Writing outputs around the caches: the size from which it pays, and a copy
// that does it.

#if defined(KONFORM_SIMD_STREAM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_STREAM_INL_H_
#undef KONFORM_SIMD_STREAM_INL_H_
#else
#define KONFORM_SIMD_STREAM_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Outputs of at least this many bytes are written with non-temporal stores:
// they would not stay cached anyway, and streaming them saves reading each
// line of the destination before it is overwritten.
constexpr int64_t kStreamBytes = int64_t{16} << 20;

// y[0, n) = x[0, n), the vectors of y that lie on vector boundaries streamed
// (the rest stored as usual). The caller calls hwy::FlushStream() once its
// last stream is written.
inline void StreamCopy(const float* HWY_RESTRICT x, float* HWY_RESTRICT y, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i < n && reinterpret_cast<uintptr_t>(y + i) % (N * sizeof(float)) != 0; ++i) y[i] = x[i];
  for (; i + N <= n; i += N) hn::Stream(hn::LoadU(d, x + i), d, y + i);
  if (i < n) std::memcpy(y + i, x + i, (n - i) * sizeof(float));
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_STREAM_INL_H_
