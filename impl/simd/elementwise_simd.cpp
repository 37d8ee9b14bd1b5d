// libtl_kernels: the six kernels of tinyllm/elementwise.h, compiled once per
// Highway target (foreach_target) and chosen at run time (HWY_DYNAMIC_DISPATCH).
// Each kernel lives in its own -inl.h (rmsnorm is norm-inl.h's RmsNorm); this
// file only instantiates and exports.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/elementwise_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/add-inl.h"
#include "impl/simd/argmax-inl.h"
#include "impl/simd/norm-inl.h"
#include "impl/simd/rope-inl.h"
#include "impl/simd/silu_mul-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {

// Which target this copy was compiled for: what dispatch.cpp reports.
inline int64_t CompiledTarget() { return HWY_TARGET; }

// rmsnorm is RmsNorm of tinyllm/norm.h over [rows, d] (norm-inl.h): one
// kernel for both.
inline void RmsNorm(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  if (rows > 0 && d > 0) NormRms(x, w, y, rows, d, eps);
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cstring>

#include "impl/simd/simd_internal.h"
#include "tinyllm/elementwise.h"

namespace konform::simd {

HWY_EXPORT(RmsNorm);
HWY_EXPORT(Rope);
HWY_EXPORT(SiluMul);
HWY_EXPORT(AddF32);
HWY_EXPORT(Argmax);
HWY_EXPORT(CompiledTarget);

int64_t DispatchedTarget() { return HWY_DYNAMIC_DISPATCH(CompiledTarget)(); }

}  // namespace konform::simd

namespace ks = konform::simd;

extern "C" {

void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  HWY_DYNAMIC_DISPATCH(ks::RmsNorm)(x, w, y, rows, d, eps);
}

void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
                 float attn_scaling, int layout) {
  HWY_DYNAMIC_DISPATCH(ks::Rope)(x, pos, T, H, D, d_rot, inv_freq, attn_scaling, layout);
}

void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ks::SiluMul)(gate, up, y, n);
}

// A row copy is glibc's memcpy on every target: it is already dispatched on
// the CPU and copies bits (NaN payloads included), which is the contract.
void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  if (n <= 0 || d <= 0) return;
  const size_t row_bytes = static_cast<size_t>(d) * sizeof(float);
  for (int64_t t = 0; t < n; ++t) {
    std::memcpy(out + t * d, table + static_cast<int64_t>(ids[t]) * d, row_bytes);
  }
}

void tl_add_f32(const float* a, const float* b, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::AddF32)(a, b, y, n); }

int32_t tl_argmax_f32(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(ks::Argmax)(x, n); }

}  // extern "C"
#endif  // HWY_ONCE
