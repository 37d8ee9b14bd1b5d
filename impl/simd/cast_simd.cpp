// libtl_kernels: the casts of tinyllm/tensor.h between f32 and f16 or bf16,
// compiled once per Highway target and chosen at run time. The conversions
// are half-inl.h's (round to nearest even on every target).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/cast_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/half-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {

// In blocks through an aligned float buffer, as the half activations go.
template <class Format>
void Demote(const float* x, uint16_t* y, int64_t n) {
  HWY_ALIGN float buf[half::kBlock];
  for (int64_t i = 0; i < n; i += static_cast<int64_t>(half::kBlock)) {
    const auto m = static_cast<size_t>(n - i < static_cast<int64_t>(half::kBlock) ? n - i : half::kBlock);
    for (size_t k = 0; k < m; ++k) buf[k] = x[i + static_cast<int64_t>(k)];
    half::Narrow<Format>(buf, y + i, m);
  }
}

template <class Format>
void Promote(const uint16_t* x, float* y, int64_t n) {
  HWY_ALIGN float buf[half::kBlock];
  for (int64_t i = 0; i < n; i += static_cast<int64_t>(half::kBlock)) {
    const auto m = static_cast<size_t>(n - i < static_cast<int64_t>(half::kBlock) ? n - i : half::kBlock);
    half::Widen<Format>(x + i, buf, m);
    for (size_t k = 0; k < m; ++k) y[i + static_cast<int64_t>(k)] = buf[k];
  }
}

void CastF32ToF16(const float* x, uint16_t* y, int64_t n) { Demote<half::F16>(x, y, n); }
void CastF32ToBF16(const float* x, uint16_t* y, int64_t n) { Demote<half::BF16>(x, y, n); }
void CastF16ToF32(const uint16_t* x, float* y, int64_t n) { Promote<half::F16>(x, y, n); }
void CastBF16ToF32(const uint16_t* x, float* y, int64_t n) { Promote<half::BF16>(x, y, n); }

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "tinyllm/tensor.h"

namespace konform::simd {

HWY_EXPORT(CastF32ToF16);
HWY_EXPORT(CastF32ToBF16);
HWY_EXPORT(CastF16ToF32);
HWY_EXPORT(CastBF16ToF32);

}  // namespace konform::simd

namespace ks = konform::simd;

extern "C" {

void tl_cast_f32_to_f16(const float* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::CastF32ToF16)(x, y, n); }
void tl_cast_f32_to_bf16(const float* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::CastF32ToBF16)(x, y, n); }
void tl_cast_f16_to_f32(const uint16_t* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::CastF16ToF32)(x, y, n); }
void tl_cast_bf16_to_f32(const uint16_t* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::CastBF16ToF32)(x, y, n); }

}  // extern "C"
#endif  // HWY_ONCE
