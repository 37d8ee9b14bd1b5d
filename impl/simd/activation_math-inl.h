// Vector math of the activation kernels: e^x, the logistic sigmoid, tanh and
// the normal CDF, for every float (the IEEE limits at +-Inf, NaN kept NaN),
// each within a few ulp. The polynomial coefficients were fitted for this
// file with mpmath (Chebyshev fits at 40 digits, then rounded to float and
// checked in float Horner arithmetic); the error figures below come from
// that check and from the harness's sweeps against the double oracle.

#if defined(KONFORM_SIMD_ACTIVATION_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_ACTIVATION_MATH_INL_H_
#undef KONFORM_SIMD_ACTIVATION_MATH_INL_H_
#else
#define KONFORM_SIMD_ACTIVATION_MATH_INL_H_
#endif

#include <array>
#include <cstddef>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
// Nested in `act`: other families' -inl.h files define helpers of the same
// names (Sigmoid, Erf) in konform::simd::HWY_NAMESPACE.
namespace konform::simd::HWY_NAMESPACE::act {
namespace hn = hwy::HWY_NAMESPACE;

// The functions below map K independent vectors at once, one step of the
// formula across all K before the next: each formula is a dependency chain of
// ~90 cycles, too long for the out-of-order window to overlap several of them
// on its own, and the compilers emit a call's steps in source order. With
// K = 4 interleaved here, Silu runs 1.5x faster on AVX-512 than with four
// calls one after the other. K = 1 serves single vectors and tails.
template <class D, size_t K>
using Vecs = std::array<hn::Vec<D>, K>;

// c[0] x^(C-1) + ... + c[C-1] for each of K vectors, by Horner with fused
// multiply-adds where the target has them.
template <class D, size_t K, size_t C>
HWY_INLINE Vecs<D, K> Horner(D d, const Vecs<D, K>& x, const float (&c)[C]) {
  Vecs<D, K> acc;
  for (size_t j = 0; j < K; ++j) acc[j] = hn::Set(d, c[0]);
  for (size_t i = 1; i < C; ++i)
    for (size_t j = 0; j < K; ++j) acc[j] = hn::MulAdd(acc[j], x[j], hn::Set(d, c[i]));
  return acc;
}

// p * 2^k for integral k in [-150, 128], rounded once: +inf past FLT_MAX,
// subnormal or 0 below FLT_MIN, like e^x itself.
template <class D>
HWY_INLINE hn::Vec<D> TimesPow2(D d, hn::Vec<D> p, hn::Vec<D> k) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  (void)d;
  return hn::Vec<D>{_mm512_scalef_ps(p.raw, k.raw)};
#else
  // 2^k in two exponent fields, each within the normal range: p * 2^k1 is
  // exact, and the second product rounds once (into the subnormals if need be).
  // k is integral and |k| < 2^22, so k + 1.5 * 2^23 holds k exactly in the
  // low bits of its mantissa: two operations, where ConvertTo's fix-up for
  // out-of-range values costs five on AVX2.
  const hn::RebindToSigned<D> di;
  const auto magic = hn::Set(d, 12582912.0f);
  const auto ki = hn::Sub(hn::BitCast(di, hn::Add(k, magic)), hn::BitCast(di, magic));
  const auto k1 = hn::ShiftRight<1>(ki);
  const auto k2 = hn::Sub(ki, k1);
  const auto bias = hn::Set(di, 127);
  const auto s1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(k1, bias)));
  const auto s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(k2, bias)));
  return hn::Mul(hn::Mul(p, s1), s2);
#endif
}

// 1 / v for finite v > 0. On AVX-512, the 14-bit estimate and one Newton
// step (error 2^-28 before the final rounding: within 0.56 ulp), about three
// times the throughput of vdivps on this CPU; elsewhere a division.
template <class D>
HWY_INLINE hn::Vec<D> Reciprocal(D d, hn::Vec<D> v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  const auto r = hn::ApproximateReciprocal(v);
  return hn::MulAdd(r, hn::NegMulAdd(v, r, hn::Set(d, 1.0f)), r);
#else
  return hn::Div(hn::Set(d, 1.0f), v);
#endif
}

// y, or x where x is NaN. On the x86 vector targets the callers' min and max
// already carry a NaN through (they return their second operand when one is
// NaN, and x is passed second); Highway's SCALAR and EMU128 Min/Max (portable
// code, EMU128 is clang's fallback target on x86 too) drop NaN, so those
// targets put it back here.
template <class D>
HWY_INLINE hn::Vec<D> KeepNaN(D d, hn::Vec<D> x, hn::Vec<D> y) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  (void)d;
  (void)x;
  return y;
#else
  (void)d;
  return hn::IfThenElse(hn::IsNaN(x), x, y);
#endif
}

// e^x for every float, within 1.2 ulp: x = k ln2 + r with |r| <= ln2/2 (ln2
// in two parts, so r carries no error beyond its own rounding), e^r by a
// degree-6 polynomial (0.04 ulp from e^r, 1.1 ulp after float rounding), and
// 2^k applied last. x is clamped to [-104, 89] first: e^-104 already rounds
// to 0 and e^89 to +inf, so -Inf gives 0 and +Inf gives +inf; NaN stays NaN
// (KeepNaN). Callers whose arguments are never above 0 (-|x|, -a^2/2) say
// kNonPositive and skip the upper clamp: one operation of the ~20 in Sigmoid,
// Silu 4 % faster from L2. kInRange: the caller clamped to [-104, 0] itself.
enum class ExpArgs { kAny, kNonPositive, kInRange };
template <ExpArgs kArgs = ExpArgs::kAny, class D, size_t K>
HWY_INLINE Vecs<D, K> ExpF(D d, const Vecs<D, K>& x) {
  static constexpr float kPoly[] = {
      0.0013941108481958508f, 0.00837512593716383f, 0.04166635125875473f, 0.16666415333747864f, 0.5f, 1.0f, 1.0f};
  Vecs<D, K> r, k;
  for (size_t j = 0; j < K; ++j) {
    r[j] = x[j];
    if constexpr (kArgs != ExpArgs::kInRange) r[j] = hn::Max(hn::Set(d, -104.0f), r[j]);
    if constexpr (kArgs == ExpArgs::kAny) r[j] = hn::Min(hn::Set(d, 89.0f), r[j]);
  }
  for (size_t j = 0; j < K; ++j) k[j] = hn::Round(hn::Mul(r[j], hn::Set(d, 1.44269504088896341f)));
  for (size_t j = 0; j < K; ++j) r[j] = hn::NegMulAdd(k[j], hn::Set(d, 0.693359375f), r[j]);  // 9 bits: exact
  for (size_t j = 0; j < K; ++j) r[j] = hn::NegMulAdd(k[j], hn::Set(d, -2.12194440e-4f), r[j]);
  auto p = Horner(d, r, kPoly);
  for (size_t j = 0; j < K; ++j) p[j] = KeepNaN(d, x[j], TimesPow2(d, p[j], k[j]));
  return p;
}

// What Sigmoid gives for a NaN x: NaN (kKeep), or any value where the
// caller multiplies the result by x (Silu, Gelu_tanh), which makes it NaN.
enum class SigmoidNaN { kKeep, kCallerMultipliesByX };

// The logistic sigmoid 1 / (1 + e^-x), within 3.5 ulp. With e = e^-|x| in
// (0, 1] and q = 1 / (1 + e): sigmoid(x) = q for x >= 0 and e * q below, so
// e never overflows and the tail below 0 keeps its relative accuracy down to
// the subnormals. +-Inf give 1 and 0; NaN stays NaN (kKeep). On AVX-512,
// -min(|x|, 104), the exp's argument already clamped, is one vrangeps
// (absolute minimum, sign set) instead of -|x| and exp's clamp: Silu +5 %,
// Gelu_tanh +8 %. vrangeps gives -104 for a quiet NaN, so kKeep puts the NaN
// back afterwards (vfixupimmps: x's class NaN selects x, quieted), which makes
// the count even for Sigmoid itself.
template <SigmoidNaN kNaN = SigmoidNaN::kKeep, class D, size_t K>
HWY_INLINE Vecs<D, K> Sigmoid(D d, const Vecs<D, K>& x) {
  Vecs<D, K> e, q;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  for (size_t j = 0; j < K; ++j) e[j] = hn::Vec<D>{_mm512_range_ps(x[j].raw, hn::Set(d, 104.0f).raw, 0xE)};
  e = ExpF<ExpArgs::kInRange>(d, e);
#else
  for (size_t j = 0; j < K; ++j) e[j] = hn::Neg(hn::Abs(x[j]));
  e = ExpF<ExpArgs::kNonPositive>(d, e);
#endif
  for (size_t j = 0; j < K; ++j) q[j] = Reciprocal(d, hn::Add(hn::Set(d, 1.0f), e[j]));
  for (size_t j = 0; j < K; ++j) q[j] = hn::IfThenElse(hn::Lt(x[j], hn::Zero(d)), hn::Mul(e[j], q[j]), q[j]);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (kNaN == SigmoidNaN::kKeep)
    for (size_t j = 0; j < K; ++j)
      q[j] = hn::Vec<D>{_mm512_fixupimm_ps(q[j].raw, x[j].raw, _mm512_set1_epi32(0x21), 0)};
#endif
  return q;
}

// tanh(x) within 3 ulp, odd by construction (computed on |x|, the sign put
// back). Below |x| = 0.55: t + t^3 P(t^2), a degree-4 fit (0.07 ulp, 1 ulp
// after rounding), where 1 - 2 / (e^2t + 1) would cancel. Above: that form,
// whose 2 / (e^2t + 1) <= 1/2 keeps the cancellation under 1 ulp; 2t is
// capped at 40, where 2 / (e^2t + 1) < 2^-56 already gives exactly 1.
template <class D, size_t K>
HWY_INLINE Vecs<D, K> TanhF(D d, const Vecs<D, K>& x) {
  static constexpr float kPoly[] = {-0.00661022774875164f, 0.021309388801455498f, -0.05390942841768265f,
                                    0.13333113491535187f, -0.3333333134651184f};
  Vecs<D, K> t, w, small, e2t;
  for (size_t j = 0; j < K; ++j) t[j] = hn::Abs(x[j]);
  for (size_t j = 0; j < K; ++j) w[j] = hn::Mul(t[j], t[j]);
  small = Horner(d, w, kPoly);
  for (size_t j = 0; j < K; ++j) small[j] = hn::MulAdd(hn::Mul(t[j], w[j]), small[j], t[j]);
  for (size_t j = 0; j < K; ++j) e2t[j] = hn::Min(hn::Set(d, 40.0f), hn::Add(t[j], t[j]));
  e2t = ExpF(d, e2t);
  for (size_t j = 0; j < K; ++j) {
    const auto one = hn::Set(d, 1.0f);
    const auto large = hn::NegMulAdd(hn::Set(d, 2.0f), Reciprocal(d, hn::Add(e2t[j], one)), one);
    t[j] = KeepNaN(d, x[j], hn::CopySign(hn::IfThenElse(hn::Lt(t[j], hn::Set(d, 0.55f)), small[j], large), x[j]));
  }
  return t;
}

// The normal CDF Phi(x) = 0.5 (1 + erf(x / sqrt(2))) = 0.5 erfc(-x / sqrt(2)).
// With a = |x|: E(a) = 0.5 erfc(a / sqrt(2)) = e^(-a^2/2) t Q(t), t = 1 / (1 +
// 0.3 a), Q a degree-9 fit in t - 1/2 over a in [0, 15] (0.7 ulp with float
// coefficients, 1.6 ulp after float rounding), and Phi = E(|x|) for x < 0,
// 1 - E(|x|) otherwise. So Phi keeps its relative accuracy in the left tail,
// where 1 + erf cancels. a^2 is split into hi + lo (exact where MulAdd is
// fused) so e^(-a^2/2) does not lose a^2 u of accuracy for large a; a is
// capped at 15, where E is 0 in float, keeping a^2 finite for +-Inf.
template <class D, size_t K>
HWY_INLINE Vecs<D, K> NormalCdf(D d, const Vecs<D, K>& x) {
  static constexpr float kPoly[] = {
      -0.020984670147299767f, 0.0199710875749588f, 0.0359109491109848f, -0.03652677312493324f, -0.07754213362932205f,
      0.02906062640249729f,   0.2220820188522339f, 0.3461987376213074f, 0.3291589915752411f,   0.22197061777114868f};
  const auto one = hn::Set(d, 1.0f), half = hn::Set(d, 0.5f);
  Vecs<D, K> a, t, q, g;
  for (size_t j = 0; j < K; ++j) a[j] = hn::Min(hn::Abs(x[j]), hn::Set(d, 15.0f));
  for (size_t j = 0; j < K; ++j) t[j] = Reciprocal(d, hn::MulAdd(a[j], hn::Set(d, 0.3f), one));
  for (size_t j = 0; j < K; ++j) q[j] = hn::Sub(t[j], half);
  q = Horner(d, q, kPoly);
  for (size_t j = 0; j < K; ++j) g[j] = hn::Mul(hn::Mul(a[j], a[j]), hn::Set(d, -0.5f));
  g = ExpF<ExpArgs::kNonPositive>(d, g);
  for (size_t j = 0; j < K; ++j) {
    const auto hi = hn::Mul(a[j], a[j]);
    const auto lo = hn::MulSub(a[j], a[j], hi);
    const auto gj = hn::NegMulAdd(hn::Mul(g[j], half), lo, g[j]);  // e^(-(hi + lo)/2) = g (1 - lo/2)
    const auto e = hn::Mul(hn::Mul(gj, t[j]), q[j]);
    a[j] = hn::IfThenElse(hn::Lt(x[j], hn::Zero(d)), e, hn::Sub(one, e));
  }
  return a;
}

// Single vectors: the K = 1 forms, for the callers that map one at a time.
template <ExpArgs kArgs = ExpArgs::kAny, class D>
HWY_INLINE hn::Vec<D> ExpF(D d, hn::Vec<D> x) {
  return ExpF<kArgs>(d, Vecs<D, 1>{x})[0];
}

template <class D>
HWY_INLINE hn::Vec<D> Sigmoid(D d, hn::Vec<D> x) {
  return Sigmoid(d, Vecs<D, 1>{x})[0];
}

}  // namespace konform::simd::HWY_NAMESPACE::act
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_ACTIVATION_MATH_INL_H_
