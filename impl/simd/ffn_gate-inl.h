// The gate products of the feed-forwards, h = act(g) * u, for the activations
// other than Silu (which is silu_mul-inl.h's SiluMul, shared with
// tl_silu_mul_f32 so that FusedSwiGlu is its unfused composition bit for bit):
// Gelu (erf or tanh) and Sigmoid.
//
// erf is Abramowitz and Stegun 7.1.26, 1 - (a1 t + ... + a5 t^5) e^(-x^2) with
// t = 1 / (1 + p x), whose absolute error is at most 1.5e-7; inside
// 0.5 g (1 + erf(g / sqrt 2)) that is under 3 units of roundoff of the
// product's magnitude 0.5 |g| (1 + |erf|), the scale the tolerance uses.

#if defined(KONFORM_SIMD_FFN_GATE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_FFN_GATE_INL_H_
#undef KONFORM_SIMD_FFN_GATE_INL_H_
#else
#define KONFORM_SIMD_FFN_GATE_INL_H_
#endif

#include <algorithm>
#include <cstdint>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "impl/simd/silu_mul-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

enum class GateKind { silu, gelu_erf, gelu_tanh, sigmoid };

// erf(x) for any x; NaN stays NaN.
template <class D>
HWY_INLINE hn::Vec<D> Erf(D d, hn::Vec<D> x) {
  const auto ax = hn::Abs(x);
  const auto t = hn::Div(hn::Set(d, 1.0f), hn::MulAdd(hn::Set(d, 0.3275911f), ax, hn::Set(d, 1.0f)));
  auto poly = hn::Set(d, 1.061405429f);
  poly = hn::MulAdd(poly, t, hn::Set(d, -1.453152027f));
  poly = hn::MulAdd(poly, t, hn::Set(d, 1.421413741f));
  poly = hn::MulAdd(poly, t, hn::Set(d, -0.284496736f));
  poly = hn::MulAdd(poly, t, hn::Set(d, 0.254829592f));
  poly = hn::Mul(poly, t);
  // e^(-x^2): the argument clamped at -104 (e^-104 is 0 against the 1 anyway).
  const auto e = ExpClamped(d, hn::Max(hn::Neg(hn::Mul(ax, ax)), hn::Set(d, -104.0f)));
  const auto r = hn::Sub(hn::Set(d, 1.0f), hn::Mul(poly, e));
  return hn::IfThenElse(hn::IsNaN(x), x, hn::CopySign(r, x));
}

template <class D>
HWY_INLINE hn::Vec<D> GeluErf(D d, hn::Vec<D> g) {
  const auto half = hn::Set(d, 0.5f);
  const auto erf = Erf(d, hn::Mul(g, hn::Set(d, 0.70710678118654752f)));
  return hn::Mul(hn::Mul(g, half), hn::Add(hn::Set(d, 1.0f), erf));
}

template <class D>
HWY_INLINE hn::Vec<D> GeluTanh(D d, hn::Vec<D> g) {
  const auto inner =
      hn::Mul(hn::Set(d, 0.79788456080286536f), hn::MulAdd(hn::Mul(hn::Set(d, 0.044715f), g), hn::Mul(g, g), g));
  return hn::Mul(hn::Mul(hn::Set(d, 0.5f), g), hn::Add(hn::Set(d, 1.0f), hn::Tanh(d, inner)));
}

template <class D>
HWY_INLINE hn::Vec<D> Sigmoid(D d, hn::Vec<D> g) {
  // As SiluMulVec: -g clamped to [-104, 100]; a NaN g gives NaN.
  const auto arg = hn::Min(hn::Max(hn::Neg(g), hn::Set(d, -104.0f)), hn::Set(d, 100.0f));
  const auto s = hn::Div(hn::Set(d, 1.0f), hn::Add(hn::Set(d, 1.0f), ExpClamped(d, arg)));
  return hn::IfThenElse(hn::IsNaN(g), g, s);
}

template <GateKind kKind, class D>
HWY_INLINE hn::Vec<D> GateMulVec(D d, hn::Vec<D> g, hn::Vec<D> u) {
  if constexpr (kKind == GateKind::gelu_erf) return hn::Mul(GeluErf(d, g), u);
  else if constexpr (kKind == GateKind::gelu_tanh) return hn::Mul(GeluTanh(d, g), u);
  else return hn::Mul(Sigmoid(d, g), u);
}

template <GateKind kKind>
void GateMulN(const float* g, const float* u, float* h, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + L <= n; i += L) hn::StoreU(GateMulVec<kKind>(d, hn::LoadU(d, g + i), hn::LoadU(d, u + i)), d, h + i);
  if (i == n) return;
  // The tail through full vectors (ExpClamped wants whole vectors on AVX3).
  HWY_ALIGN float gt[HWY_MAX_BYTES / sizeof(float)] = {}, ut[HWY_MAX_BYTES / sizeof(float)] = {};
  std::copy(g + i, g + n, gt);
  std::copy(u + i, u + n, ut);
  hn::Store(GateMulVec<kKind>(d, hn::Load(d, gt), hn::Load(d, ut)), d, gt);
  std::copy(gt, gt + (n - i), h + i);
}

// h[i] = act(g[i]) * u[i], i < n.
inline void GateMul(GateKind kind, const float* g, const float* u, float* h, int64_t n) {
  switch (kind) {
    case GateKind::silu: SiluMul(g, u, h, n); break;
    case GateKind::gelu_erf: GateMulN<GateKind::gelu_erf>(g, u, h, n); break;
    case GateKind::gelu_tanh: GateMulN<GateKind::gelu_tanh>(g, u, h, n); break;
    case GateKind::sigmoid: GateMulN<GateKind::sigmoid>(g, u, h, n); break;
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_FFN_GATE_INL_H_
