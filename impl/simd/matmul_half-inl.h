// Matmul in f16 and bf16 through the f32 matmul's paths (matmul_gemm-inl.h,
// matmul_strip-inl.h): x's rows and W's values widened to f32 where they are
// packed or loaded (exactly: a half value is a float), so the products and
// the chains of 128 multiply-adds are the f32 matmul's, bit for bit, on the
// widened values; y is summed in an f32 buffer and rounded once to the dtype
// (half-inl.h: to nearest even; linalg_simd.cpp's MatmulHalf). No f32 copy
// of W is made.

#if defined(KONFORM_SIMD_MATMUL_HALF_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_MATMUL_HALF_INL_H_
#undef KONFORM_SIMD_MATMUL_HALF_INL_H_
#else
#define KONFORM_SIMD_MATMUL_HALF_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "impl/simd/half-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// n half values from p widened into out (unaligned): vectors where the
// format has them on this target (half-inl.h), one by one otherwise.
template <class Format>
HWY_INLINE void WidenRun(const uint16_t* p, float* out, int64_t n) {
  int64_t i = 0;
  if constexpr (Format::kVector) {
    const hn::ScalableTag<float> d;
    const int64_t L = static_cast<int64_t>(hn::Lanes(d));
    for (; i + L <= n; i += L) hn::StoreU(Format::WidenVec(d, p + i), d, out + i);
  }
  for (; i < n; ++i) out[i] = Format::Widen(p[i]);
}

// Rows of a half x: x[m][k] widened, row stride ldx (PackX's source).
template <class Format>
struct HalfRows {
  const uint16_t* x;
  int64_t ldx;
  HWY_INLINE void Pack(int64_t m, int64_t k0, int64_t kc, float* out, int64_t stride) const {
    const uint16_t* src = x + m * ldx + k0;
    if (stride == 1) return WidenRun<Format>(src, out, kc);
    for (int64_t k = 0; k < kc; ++k) out[k * stride] = Format::Widen(src[k]);
  }
};

// W as N rows of K half values, widened where they are read
// (matmul_weights-inl.h's interface).
template <class Format>
struct HalfWeights {
  static constexpr bool kRowPointers = false;  // Row() widens into the caller's buffer
  static constexpr bool kVectorLoads = true;   // Load() at any k: PackW's transposed tiles
  const uint16_t* w;
  int64_t K;

  template <class D>
  HWY_INLINE hn::Vec<D> Load(D d, int64_t n, int64_t k) const {
    return LoadRow(d, Address(n, 0), k);
  }
  template <class D>
  static HWY_INLINE hn::Vec<D> LoadRow(D d, const uint16_t* row, int64_t k) {
    if constexpr (Format::kVector) {
      return Format::WidenVec(d, row + k);
    } else {
      HWY_ALIGN float v[HWY_MAX_BYTES / sizeof(float)];
      const int64_t L = static_cast<int64_t>(hn::Lanes(d));
      for (int64_t i = 0; i < L; ++i) v[i] = Format::Widen(row[k + i]);
      return hn::Load(d, v);
    }
  }
  HWY_INLINE float At(int64_t n, int64_t k) const { return Format::Widen(w[n * K + k]); }
  HWY_INLINE const float* Row(int64_t n, int64_t k0, int64_t kc, float* buf) const {
    WidenRun<Format>(w + n * K + k0, buf, kc);
    return buf;
  }
  static constexpr int64_t kElementBytes = 2;
  HWY_INLINE const uint16_t* Address(int64_t n, int64_t k) const { return w + n * K + k; }
};

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_MATMUL_HALF_INL_H_
