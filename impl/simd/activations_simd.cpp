// libtl_kernels: the functions of tinyllm/activations.h, compiled once per
// Highway target (foreach_target) and chosen at run time
// (HWY_DYNAMIC_DISPATCH). The kernels live in activations-inl.h and
// softmax-inl.h; this file instantiates, validates arguments and exports.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/activations_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <new>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "impl/simd/activations-inl.h"
#include "impl/simd/half-inl.h"
#include "impl/simd/softmax-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {

// The exported entry points (HWY_EXPORT needs them in this namespace, by a
// plain name); the kernels stay in act::.
void ActSilu(const float* x, float* y, int64_t n) { act::SiluF32(x, y, n); }
void ActGeluErf(const float* x, float* y, int64_t n) { act::GeluErfF32(x, y, n); }
void ActGeluTanh(const float* x, float* y, int64_t n) { act::GeluTanhF32(x, y, n); }
void ActRelu(const float* x, float* y, int64_t n) { act::ReluF32(x, y, n); }
void ActLeakyRelu(const float* x, float* y, int64_t n, float alpha) { act::LeakyReluF32(x, y, n, alpha); }
void ActPRelu(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  act::PReluF32(x, slope, y, outer, channels, inner);
}
void ActSigmoid(const float* x, float* y, int64_t n) { act::SigmoidF32(x, y, n); }
void ActTanh(const float* x, float* y, int64_t n) { act::TanhF32(x, y, n); }
void ActSoftmax(const float* x, float* y, int64_t outer, int64_t length, int64_t inner) {
  act::SoftmaxF32(x, y, outer, length, inner);
}
void ActSwiGlu(const float* gate, const float* up, float* y, int64_t n) { act::SwiGluF32(gate, up, y, n); }
void ActGeGlu(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  act::GeGluF32(gate, up, y, n, approximation);
}
void ActGlu(const float* gate, const float* up, float* y, int64_t n) { act::GluF32(gate, up, y, n); }

// f16 and bf16: the f32 kernels' group functions on vectors widened in the
// registers (act::MapUnaryHalf).
#define KONFORM_HALF_UNARY(Name, Group)                                                                         \
  void Name##F16(const uint16_t* x, uint16_t* y, int64_t n) { act::MapUnaryHalf<half::F16>(x, y, n, Group()); } \
  void Name##BF16(const uint16_t* x, uint16_t* y, int64_t n) { act::MapUnaryHalf<half::BF16>(x, y, n, Group()); }
KONFORM_HALF_UNARY(ActSilu, act::SiluGroup)
KONFORM_HALF_UNARY(ActGeluErf, act::GeluErfGroup)
KONFORM_HALF_UNARY(ActGeluTanh, act::GeluTanhGroup)
KONFORM_HALF_UNARY(ActSigmoid, act::SigmoidGroup)
KONFORM_HALF_UNARY(ActTanh, act::TanhGroup)
#undef KONFORM_HALF_UNARY
void ActReluF16(const uint16_t* x, uint16_t* y, int64_t n) { act::ReluHalf<half::F16>(x, y, n); }
void ActReluBF16(const uint16_t* x, uint16_t* y, int64_t n) { act::ReluHalf<half::BF16>(x, y, n); }
// Softmax's lines along the last axis: the f32 kernel's passes over the
// half line widened in the registers (act::HalfLine), the e in a float
// line, then y = e (1/sum) rounded: the f32 kernel's bits, rounded once,
// with x read as stored.
template <class Format>
void SoftmaxRowsHalf(const uint16_t* x, uint16_t* y, int64_t outer, int64_t length) {
  if constexpr (half::kToBf16Cvt<Format>)
    if (HasBf16Cvt()) return SoftmaxRowsHalf<half::BF16Cvt>(x, y, outer, length);
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(length);
  const auto e = hwy::AllocateAligned<float>(n);
  if (e == nullptr) throw std::bad_alloc();
  for (int64_t o = 0; o < outer; ++o) {
    const uint16_t* xo = x + o * length;
    const double total = act::SoftmaxExps(act::HalfLine<Format>(xo, o + 1 < outer ? xo + length : nullptr), n, e.get());
    const float inv = static_cast<float>(1.0 / total);
    uint16_t* yo = y + o * length;
    size_t i = 0;
    if constexpr (Format::kVector)
      for (; i + N <= n; i += N) Format::NarrowVec(d, hn::Mul(hn::Load(d, e.get() + i), hn::Set(d, inv)), yo + i);
    for (; i < n; ++i) yo[i] = Format::Narrow(e[i] * inv);
  }
}

// Along other axes the lines cross the 256-value blocks of ThroughF32, so
// whole [length, inner] slices are widened at a time: as many as fill 64
// KiB of floats (at least one), the f32 kernel run on them in place, y
// rounded back. Slices are independent, so the result is the whole
// tensor's.
template <class Format>
void SoftmaxHalf(const uint16_t* x, uint16_t* y, int64_t outer, int64_t length, int64_t inner) {
  const int64_t block = length * inner;
  if (outer <= 0 || block <= 0) return;
  if (inner == 1) return SoftmaxRowsHalf<Format>(x, y, outer, length);
  const int64_t per = std::max<int64_t>(1, std::min<int64_t>(outer, 16384 / block));
  const auto wide = hwy::AllocateAligned<float>(static_cast<size_t>(per * block));
  if (wide == nullptr) throw std::bad_alloc();
  for (int64_t o = 0; o < outer; o += per) {
    const int64_t m = std::min(per, outer - o);
    const size_t count = static_cast<size_t>(m * block);
    half::Widen<Format>(x + o * block, wide.get(), count);
    act::SoftmaxF32(wide.get(), wide.get(), m, length, inner);
    half::Narrow<Format>(wide.get(), y + o * block, count);
  }
}
void ActSoftmaxF16(const uint16_t* x, uint16_t* y, int64_t outer, int64_t length, int64_t inner) {
  SoftmaxHalf<half::F16>(x, y, outer, length, inner);
}
void ActSoftmaxBF16(const uint16_t* x, uint16_t* y, int64_t outer, int64_t length, int64_t inner) {
  SoftmaxHalf<half::BF16>(x, y, outer, length, inner);
}
// The gated twins: gate and up widened block by block, the f32 kernel, y
// rounded once (half::PairThroughF32).
#define KONFORM_HALF_GATED(Name, Kernel)                                              \
  void Name##F16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {  \
    half::PairThroughF32<half::F16>(gate, up, y, n, Kernel);                          \
  }                                                                                   \
  void Name##BF16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) { \
    half::PairThroughF32<half::BF16>(gate, up, y, n, Kernel);                         \
  }
KONFORM_HALF_GATED(ActSwiGlu, act::SwiGluF32)
KONFORM_HALF_GATED(ActGlu, act::GluF32)
#undef KONFORM_HALF_GATED
template <class Format>
void GeGluHalf(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation) {
  half::PairThroughF32<Format>(gate, up, y, n, [approximation](const float* g, const float* u, float* v, int64_t m) {
    act::GeGluF32(g, u, v, m, approximation);
  });
}
void ActGeGluF16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation) {
  GeGluHalf<half::F16>(gate, up, y, n, approximation);
}
void ActGeGluBF16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation) {
  GeGluHalf<half::BF16>(gate, up, y, n, approximation);
}
// PRelu: a channel's slope reaches across the blocks ThroughF32 widens, so
// the whole tensor is widened at once, as Softmax's.
template <class Format>
void PReluHalf(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  if (outer <= 0 || channels <= 0 || inner <= 0) return;
  const size_t n = static_cast<size_t>(outer * channels * inner);
  const auto wide = hwy::AllocateAligned<float>(n);
  half::Widen<Format>(x, wide.get(), n);
  act::PReluF32(wide.get(), slope, wide.get(), outer, channels, inner);
  half::Narrow<Format>(wide.get(), y, n);
}
void ActPReluF16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  PReluHalf<half::F16>(x, slope, y, outer, channels, inner);
}
void ActPReluBF16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  PReluHalf<half::BF16>(x, slope, y, outer, channels, inner);
}
void ActLeakyReluF16(const uint16_t* x, uint16_t* y, int64_t n, float alpha) {
  act::MapUnaryHalf<half::F16>(x, y, n, act::LeakyGroup(alpha));
}
void ActLeakyReluBF16(const uint16_t* x, uint16_t* y, int64_t n, float alpha) {
  act::MapUnaryHalf<half::BF16>(x, y, n, act::LeakyGroup(alpha));
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "impl/common/activation_args.hpp"
#include "tinyllm/activations.h"

namespace konform::simd {

HWY_EXPORT(ActSilu);
HWY_EXPORT(ActGeluErf);
HWY_EXPORT(ActGeluTanh);
HWY_EXPORT(ActRelu);
HWY_EXPORT(ActLeakyRelu);
HWY_EXPORT(ActPRelu);
HWY_EXPORT(ActSigmoid);
HWY_EXPORT(ActTanh);
HWY_EXPORT(ActSoftmax);
HWY_EXPORT(ActSoftmaxF16);
HWY_EXPORT(ActSoftmaxBF16);
HWY_EXPORT(ActSwiGlu);
HWY_EXPORT(ActGeGlu);
HWY_EXPORT(ActGlu);
HWY_EXPORT(ActSiluF16);
HWY_EXPORT(ActSiluBF16);
HWY_EXPORT(ActGeluErfF16);
HWY_EXPORT(ActGeluErfBF16);
HWY_EXPORT(ActGeluTanhF16);
HWY_EXPORT(ActGeluTanhBF16);
HWY_EXPORT(ActReluF16);
HWY_EXPORT(ActReluBF16);
HWY_EXPORT(ActLeakyReluF16);
HWY_EXPORT(ActLeakyReluBF16);
HWY_EXPORT(ActPReluF16);
HWY_EXPORT(ActPReluBF16);
HWY_EXPORT(ActSigmoidF16);
HWY_EXPORT(ActSigmoidBF16);
HWY_EXPORT(ActTanhF16);
HWY_EXPORT(ActTanhBF16);
HWY_EXPORT(ActSwiGluF16);
HWY_EXPORT(ActSwiGluBF16);
HWY_EXPORT(ActGeGluF16);
HWY_EXPORT(ActGeGluBF16);
HWY_EXPORT(ActGluF16);
HWY_EXPORT(ActGluBF16);

}  // namespace konform::simd

namespace ks = konform::simd;

extern "C" {

void tl_silu_f32(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActSilu)(x, y, n); }

void tl_gelu_erf_f32(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActGeluErf)(x, y, n); }

void tl_gelu_tanh_f32(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActGeluTanh)(x, y, n); }

void tl_relu_f32(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActRelu)(x, y, n); }

void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) {
  HWY_DYNAMIC_DISPATCH(ks::ActLeakyRelu)(x, y, n, alpha);
}

void tl_prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  HWY_DYNAMIC_DISPATCH(ks::ActPRelu)(x, slope, y, outer, channels, inner);
}

void tl_sigmoid_f32(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActSigmoid)(x, y, n); }

void tl_tanh_f32(const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActTanh)(x, y, n); }

void tl_silu_f16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActSiluF16)(x, y, n); }
void tl_silu_bf16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActSiluBF16)(x, y, n); }
void tl_gelu_erf_f16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActGeluErfF16)(x, y, n); }
void tl_gelu_erf_bf16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActGeluErfBF16)(x, y, n); }
void tl_gelu_tanh_f16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActGeluTanhF16)(x, y, n); }
void tl_gelu_tanh_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ks::ActGeluTanhBF16)(x, y, n);
}
void tl_relu_f16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActReluF16)(x, y, n); }
void tl_relu_bf16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActReluBF16)(x, y, n); }
void tl_leaky_relu_f16(const uint16_t* x, uint16_t* y, int64_t n, float alpha) {
  HWY_DYNAMIC_DISPATCH(ks::ActLeakyReluF16)(x, y, n, alpha);
}
void tl_leaky_relu_bf16(const uint16_t* x, uint16_t* y, int64_t n, float alpha) {
  HWY_DYNAMIC_DISPATCH(ks::ActLeakyReluBF16)(x, y, n, alpha);
}
void tl_prelu_f16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  HWY_DYNAMIC_DISPATCH(ks::ActPReluF16)(x, slope, y, outer, channels, inner);
}
void tl_prelu_bf16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  HWY_DYNAMIC_DISPATCH(ks::ActPReluBF16)(x, slope, y, outer, channels, inner);
}
void tl_sigmoid_f16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActSigmoidF16)(x, y, n); }
void tl_sigmoid_bf16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActSigmoidBF16)(x, y, n); }
void tl_tanh_f16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActTanhF16)(x, y, n); }
void tl_tanh_bf16(const uint16_t* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(ks::ActTanhBF16)(x, y, n); }

tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  konform::impl::AxisSplit s;
  if (const tl_status st = konform::impl::split_at_axis(shape, rank, axis, &s); st != TL_OK) return st;
  HWY_DYNAMIC_DISPATCH(ks::ActSoftmax)(x, y, s.outer, s.length, s.inner);
  return TL_OK;
}

#define KONFORM_SOFTMAX_HALF(Dtype, Kernel)                                                                \
  tl_status tl_softmax_##Dtype(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis) { \
    konform::impl::AxisSplit s;                                                                            \
    if (const tl_status st = konform::impl::split_at_axis(shape, rank, axis, &s); st != TL_OK) return st;  \
    HWY_DYNAMIC_DISPATCH(ks::Kernel)(x, y, s.outer, s.length, s.inner);                                    \
    return TL_OK;                                                                                          \
  }
KONFORM_SOFTMAX_HALF(f16, ActSoftmaxF16)
KONFORM_SOFTMAX_HALF(bf16, ActSoftmaxBF16)
#undef KONFORM_SOFTMAX_HALF

void tl_swiglu_f32(const float* gate, const float* up, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ks::ActSwiGlu)(gate, up, y, n);
}

tl_status tl_geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  if (const tl_status st = konform::impl::check_gelu_approximation(approximation); st != TL_OK) return st;
  HWY_DYNAMIC_DISPATCH(ks::ActGeGlu)(gate, up, y, n, approximation);
  return TL_OK;
}

void tl_glu_f32(const float* gate, const float* up, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ks::ActGlu)(gate, up, y, n);
}

// f16 and bf16: the dispatched PairThroughF32 kernels.
#define KONFORM_GATED_HALF(Dtype, Suffix)                                                                           \
  void tl_swiglu_##Dtype(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {                        \
    HWY_DYNAMIC_DISPATCH(ks::ActSwiGlu##Suffix)(gate, up, y, n);                                                    \
  }                                                                                                                 \
  tl_status tl_geglu_##Dtype(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation) { \
    if (const tl_status st = konform::impl::check_gelu_approximation(approximation); st != TL_OK) return st;        \
    HWY_DYNAMIC_DISPATCH(ks::ActGeGlu##Suffix)(gate, up, y, n, approximation);                                      \
    return TL_OK;                                                                                                   \
  }                                                                                                                 \
  void tl_glu_##Dtype(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {                           \
    HWY_DYNAMIC_DISPATCH(ks::ActGlu##Suffix)(gate, up, y, n);                                                       \
  }
KONFORM_GATED_HALF(f16, F16)
KONFORM_GATED_HALF(bf16, BF16)
#undef KONFORM_GATED_HALF

}  // extern "C"
#endif  // HWY_ONCE
