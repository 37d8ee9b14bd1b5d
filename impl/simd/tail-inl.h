// What differs between targets at the edges of the vector code: the
// partial-vector load and store for the last n < Lanes(d) floats of an
// array, and the largest lane of a vector.
//
// Why not hwy::MaskedLoad everywhere: on SSE4/SSSE3 Highway 1.0.3 implements it
// as a full (aligned!) load then a blend, which reads past the end of the
// array. AVX2 (vmaskmovps) and AVX3 (masked moves) suppress faults on masked-off
// lanes, so only they use the masked instructions; the others go through a
// small stack buffer.

#if defined(KONFORM_SIMD_TAIL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_TAIL_INL_H_
#undef KONFORM_SIMD_TAIL_INL_H_
#else
#define KONFORM_SIMD_TAIL_INL_H_
#endif

#include <cstddef>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define KONFORM_SIMD_SAFE_MASKED_MEMORY 1
#else
#define KONFORM_SIMD_SAFE_MASKED_MEMORY 0
#endif

// p[0..n) into the first n lanes, zeros in the others; p[n..] is never read.
template <class D>
HWY_INLINE hn::Vec<D> LoadHead(D d, const float* p, size_t n) {
#if KONFORM_SIMD_SAFE_MASKED_MEMORY
  return hn::MaskedLoad(hn::FirstN(d, n), d, p);
#else
  HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)] = {};
  std::memcpy(buf, p, n * sizeof(float));
  return hn::Load(d, buf);
#endif
}

// The first n lanes of v into p[0..n); p[n..] is never written.
template <class D>
HWY_INLINE void StoreHead(hn::Vec<D> v, D d, float* p, size_t n) {
#if KONFORM_SIMD_SAFE_MASKED_MEMORY
  hn::BlendedStore(v, hn::FirstN(d, n), d, p);
#else
  HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)];
  hn::Store(v, d, buf);
  std::memcpy(p, buf, n * sizeof(float));
#endif
}

#undef KONFORM_SIMD_SAFE_MASKED_MEMORY

// The largest lane of v, -inf when every lane is -inf, on every target:
// EMU128's MaxOfLanes starts from the lowest finite float, so it would give
// -FLT_MAX there. With a NaN lane the result is unspecified (x86's max does
// not order NaN).
template <class D>
HWY_INLINE float MaxLane(D d, hn::Vec<D> v) {
#if HWY_TARGET == HWY_EMU128
  HWY_ALIGN float lanes[hn::MaxLanes(d)];
  hn::Store(v, d, lanes);
  float r = lanes[0];
  for (size_t k = 1; k < hn::Lanes(d); ++k) r = lanes[k] > r ? lanes[k] : r;
  return r;
#else
  return hn::GetLane(hn::MaxOfLanes(d, v));
#endif
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TAIL_INL_H_
