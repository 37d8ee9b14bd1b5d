// a / b correctly rounded without the divider, for the vectors of Div's hot
// loop that the divider has no time for.
//
// vdivps on a 512-bit vector occupies the divider for ~10.7 cycles here (5.6
// quotients a ns), which is all Div's time from L2. The divider works beside
// the FMA ports, so Div sends every other vector through Quotient below and
// both run at once (32 x 4096 in one process: 65 -> 83 % of the reference).
//
// The quotient: y ~ 1/b, the 14-bit estimate and one Newton step;
// q0 = a y; q = q0 + (a - b q0) y. It is nearly always RN(a/b) (one miss in
// 50 million near powers of two, where b's significand is all ones), so each
// lane is proven instead, and the lanes that are not go to the divider.
//
// The proof: q = RN(a/b) iff a/b lies within half the gap to q's neighbours:
// |a/b - q| < h, h = ulp(q)/2, or ulp(q)/4 when |q| is a power of two (the
// float below it is nearer), used on both sides there. (a/b is never on such
// a boundary: no quotient of floats is a float midpoint.) So q is proven when
// |a - b q| < t = h |b|. With q = Q 2^(eq-23) and b = B 2^(eb-23), b q is a
// multiple of 2^(eb+eq-46), and so is a, whose exponent is at least
// eb + eq - 1 whenever |a - b q| < t < 2^(eb+eq-23): the remainder is then an
// integer times 2^(eb+eq-46) below 2^23 of them, which a float holds exactly
// (t >= 2^-124 keeps that unit at or above 2^-149). So r = fma(-b, q, a) is
// the remainder itself when the test can pass, and where the true remainder
// is not below t, rounding keeps |r| >= t (t is a float: h is a power of two
// and t in [2^-124, 2^110) is normal, so h |b| is exact). Zero, subnormal,
// infinite and NaN q, a or b all give a t outside that range or an |r| that
// fails: the divider takes them, so special values come out as vdivps makes
// them. Round to nearest, as everywhere in the library.

#if defined(KONFORM_SIMD_DIVIDE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_DIVIDE_INL_H_
#undef KONFORM_SIMD_DIVIDE_INL_H_
#else
#define KONFORM_SIMD_DIVIDE_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// RN(a / b) in every lane, bit for bit what hn::Div gives.
template <class V>
HWY_INLINE V Quotient(V a, V b) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (sizeof(V) == 64) {
    const __m512 va = a.raw, vb = b.raw;
    __m512 y = _mm512_rcp14_ps(vb);
    y = _mm512_fmadd_ps(_mm512_fnmadd_ps(vb, y, _mm512_set1_ps(1.0f)), y, y);
    __m512 q = _mm512_mul_ps(va, y);
    q = _mm512_fmadd_ps(_mm512_fnmadd_ps(vb, q, va), y, q);
    const __m512 r = _mm512_fnmadd_ps(vb, q, va);
    const __m512i bits = _mm512_castps_si512(q);
    // h = 2^(e - 24) from q's exponent field e (<= 0 in the bits where q is 0
    // or subnormal, which the range test below then refuses), halved where
    // the significand is 1.
    __m512i h = _mm512_sub_epi32(_mm512_and_si512(bits, _mm512_set1_epi32(0x7f800000)), _mm512_set1_epi32(24 << 23));
    const __mmask16 power_of_two = _mm512_testn_epi32_mask(bits, _mm512_set1_epi32(0x007fffff));
    h = _mm512_mask_sub_epi32(h, power_of_two, h, _mm512_set1_epi32(1 << 23));
    const __m512 t = _mm512_mul_ps(_mm512_castsi512_ps(h), _mm512_abs_ps(vb));
    // t in [2^-124, 2^110): exponent field in [3, 237), sign clear.
    const __mmask16 in_range =
        _mm512_cmp_epu32_mask(_mm512_sub_epi32(_mm512_castps_si512(t), _mm512_set1_epi32(3 << 23)),
                              _mm512_set1_epi32(234 << 23), _MM_CMPINT_LT);
    const __mmask16 proven = _mm512_mask_cmp_ps_mask(in_range, _mm512_abs_ps(r), t, _CMP_LT_OQ);
    if (proven != 0xFFFF) q = _mm512_mask_div_ps(q, static_cast<__mmask16>(~proven), va, vb);
    return V{q};
  }
#endif
  return hn::Div(a, b);
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_DIVIDE_INL_H_
