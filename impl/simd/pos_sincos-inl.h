// sin and cos of double angles, a vector at a time, accurate to ~1e-16
// absolute for |x| <= 2^26: the angles of tinyllm/pos.h are formed and
// evaluated in double and only the results are rounded to float, so float
// (or Highway's f32 Sin/Cos, valid to |x| <= 39000) is not enough. Lanes past
// 2^26, and NaN or Inf, go to libm.
//
// Reduction: k = nearest integer to x * 2/pi, r = x - k*(P1 + P2 + P3) with
// P1, P2 the leading 27 bits each of pi/2 (so k*P1 and k*P2 are exact for
// k < 2^26) and P3 the rest; |r| <= pi/4, then sin r and cos r by the
// minimax polynomials of fdlibm's __kernel_sin/__kernel_cos (degree 13/14),
// and the quadrant k mod 4 swaps and negates them.

#if defined(KONFORM_SIMD_POS_SINCOS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_POS_SINCOS_INL_H_
#undef KONFORM_SIMD_POS_SINCOS_INL_H_
#else
#define KONFORM_SIMD_POS_SINCOS_INL_H_
#endif

#include <cmath>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr double kSinCosLimit = 67108864.0;  // 2^26

// sin and cos of every lane of x (a double vector).
template <class D>
HWY_INLINE void SinCos64(D d, hn::Vec<D> x, hn::Vec<D>* sin_out, hn::Vec<D>* cos_out) {
  using V = hn::Vec<D>;
  if (!hn::AllTrue(d, hn::Le(hn::Abs(x), hn::Set(d, kSinCosLimit)))) {  // NaN fails the test too
    HWY_ALIGN double in[HWY_MAX_BYTES / sizeof(double)], s[HWY_MAX_BYTES / sizeof(double)],
        c[HWY_MAX_BYTES / sizeof(double)];
    hn::Store(x, d, in);
    for (size_t i = 0; i < hn::Lanes(d); ++i) s[i] = std::sin(in[i]), c[i] = std::cos(in[i]);
    *sin_out = hn::Load(d, s);
    *cos_out = hn::Load(d, c);
    return;
  }
  const V k = hn::Round(hn::Mul(x, hn::Set(d, 0.63661977236758134308)));  // 2/pi
  // pi/2 = P1 + P2 + P3: 27 + 27 bits, then the rest.
  const V p1 = hn::Set(d, 1.570796325802803);      // 27 bits
  const V p2 = hn::Set(d, 9.920935739593517e-10);  // 27 bits
  const V p3 = hn::Set(d, 5.721188726109832e-18);  // rounded; the rest is 4e-35
  V r = hn::Sub(x, hn::Mul(k, p1));
  r = hn::Sub(r, hn::Mul(k, p2));
  r = hn::Sub(r, hn::Mul(k, p3));
  const V r2 = hn::Mul(r, r);
  // sin r = r + r^3 (S1 + r^2 (S2 + ... + r^2 S6))
  V ps = hn::Set(d, 1.58969099521155010221e-10);
  ps = hn::MulAdd(ps, r2, hn::Set(d, -2.50507602534068634195e-08));
  ps = hn::MulAdd(ps, r2, hn::Set(d, 2.75573137070700676789e-06));
  ps = hn::MulAdd(ps, r2, hn::Set(d, -1.98412698298579493134e-04));
  ps = hn::MulAdd(ps, r2, hn::Set(d, 8.33333333332248946124e-03));
  ps = hn::MulAdd(ps, r2, hn::Set(d, -1.66666666666666324348e-01));
  const V sin_r = hn::MulAdd(hn::Mul(ps, r2), r, r);
  // cos r = 1 - r^2/2 + r^4 (C1 + r^2 (C2 + ... + r^2 C6))
  V pc = hn::Set(d, -1.13596475577881948265e-11);
  pc = hn::MulAdd(pc, r2, hn::Set(d, 2.08757232129817482790e-09));
  pc = hn::MulAdd(pc, r2, hn::Set(d, -2.75573143513906633035e-07));
  pc = hn::MulAdd(pc, r2, hn::Set(d, 2.48015872894767294178e-05));
  pc = hn::MulAdd(pc, r2, hn::Set(d, -1.38888888888741095749e-03));
  pc = hn::MulAdd(pc, r2, hn::Set(d, 4.16666666666666019037e-02));
  const V cos_r = hn::MulAdd(hn::Mul(pc, r2), r2, hn::NegMulAdd(hn::Set(d, 0.5), r2, hn::Set(d, 1.0)));
  // Quadrant q = k mod 4, exact in double: x = r + q pi/2 (mod 2 pi).
  const V q = hn::Sub(k, hn::Mul(hn::Set(d, 4.0), hn::Floor(hn::Mul(k, hn::Set(d, 0.25)))));
  const auto odd = hn::Or(hn::Eq(q, hn::Set(d, 1.0)), hn::Eq(q, hn::Set(d, 3.0)));
  const auto sin_neg = hn::Ge(q, hn::Set(d, 2.0));
  const auto cos_neg = hn::Or(hn::Eq(q, hn::Set(d, 1.0)), hn::Eq(q, hn::Set(d, 2.0)));
  const V s = hn::IfThenElse(odd, cos_r, sin_r), c = hn::IfThenElse(odd, sin_r, cos_r);
  *sin_out = hn::IfThenElse(sin_neg, hn::Neg(s), s);
  *cos_out = hn::IfThenElse(cos_neg, hn::Neg(c), c);
}

// out_sin[i] = (float)sin(p * f[i]), out_cos[i] = (float)cos(p * f[i]) for
// i < n; f is padded to a whole number of double vectors, the outputs to a
// whole number of float half-vectors (Rebind<float, D>).
template <class D>
HWY_INLINE void SinCosRow(D d, double p, const double* f, size_t n, float* out_sin, float* out_cos) {
  const hn::Rebind<float, D> df;
  const size_t N = hn::Lanes(d);
  const auto vp = hn::Set(d, p);
  for (size_t i = 0; i < n; i += N) {
    hn::Vec<D> s, c;
    SinCos64(d, hn::Mul(vp, hn::Load(d, f + i)), &s, &c);
    hn::Store(hn::DemoteTo(df, s), df, out_sin + i);
    hn::Store(hn::DemoteTo(df, c), df, out_cos + i);
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_POS_SINCOS_INL_H_
