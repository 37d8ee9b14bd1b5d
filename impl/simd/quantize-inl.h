// Quantize to Q8_0, Q4_0 and Q4_K, bit for bit as ggml's reference
// quantizers (tinyllm/quant.h): every float operation of the reference, in
// its order, one rounding each (the library builds with -ffp-contract=off and
// uses Mul then Add where the reference multiplies then adds).
//
// Q8_0 and Q4_0 vectorize over the 32 values of a block. Q4_K's scale search
// runs 21 trial grids over each sub-block of 32 values with sums that must
// stay sequential to keep the reference's bits, so it vectorizes across the
// eight sub-blocks of a super-block instead: lane j follows sub-block j
// through exactly the reference's steps.

#if defined(KONFORM_SIMD_QUANTIZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_QUANTIZE_INL_H_
#undef KONFORM_SIMD_QUANTIZE_INL_H_
#else
#define KONFORM_SIMD_QUANTIZE_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "hwy/highway.h"
#include "impl/common/f16.hpp"
#include "impl/common/quantize.hpp"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using QTag = hn::CappedTag<float, 16>;  // at most half a block per vector

// The largest |x| of a block of 32 finite values (a max: no order to keep).
HWY_INLINE float BlockAbsMax(const float* x) {
  const QTag d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  auto m = hn::Zero(d);
  for (int64_t j = 0; j < 32; j += L) m = hn::Max(m, hn::Abs(hn::LoadU(d, x + j)));
  return hn::GetLane(hn::MaxOfLanes(d, m));
}

// Whether all n values are finite.
HWY_INLINE bool AllFinite(const float* x, int64_t n, int64_t* first_bad) {
  const QTag d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + L <= n; i += L)
    if (!hn::AllTrue(d, hn::IsFinite(hn::LoadU(d, x + i)))) break;
  for (; i < n; ++i)
    if (!std::isfinite(x[i])) {
      *first_bad = i;
      return false;
    }
  return true;
}

// roundf: to nearest, halves away from zero. |v - trunc(v)| is exact.
template <class D>
HWY_INLINE hn::Vec<D> RoundHalfAway(D d, hn::Vec<D> v) {
  const auto t = hn::Trunc(v);
  const auto up = hn::Ge(hn::Abs(hn::Sub(v, t)), hn::Set(d, 0.5f));
  return hn::IfThenElse(up, hn::Add(t, hn::CopySign(hn::Set(d, 1.0f), v)), t);
}

// The scalar pieces shared with the other kernel libraries.
using impl::f16::F32ToF16;
using impl::f16::StoreF16;
using impl::quantize::inverse_scale;

// ---------------------------------------------------------------- Q8_0

// The f32 scale of a Q8_0 block whose max |x| is amax.
HWY_INLINE float Q8Scale(float amax) { return amax / 127.0f; }

HWY_INLINE void QuantizeQ8Block(const float* x, uint8_t* out) {
  const QTag d;
  const hn::RebindToSigned<QTag> di;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const float dscale = Q8Scale(BlockAbsMax(x));
  const float id = inverse_scale(dscale);
  StoreF16(out, F32ToF16(dscale));
  HWY_ALIGN int32_t q[32];
  for (int64_t j = 0; j < 32; j += L)
    hn::Store(hn::ConvertTo(di, RoundHalfAway(d, hn::Mul(hn::LoadU(d, x + j), hn::Set(d, id)))), di, q + j);
  for (int j = 0; j < 32; ++j) out[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(q[j]));
}

// ---------------------------------------------------------------- Q4_0

// The value of largest magnitude, the first of equals; +0 for a block of
// zeros (as the reference, whose running maximum starts at +0).
HWY_INLINE float SignedAbsMax(const float* x) {
  const float amax = BlockAbsMax(x);
  if (amax == 0.0f) return 0.0f;
  for (int j = 0; j < 32; ++j)
    if (std::fabs(x[j]) == amax) return x[j];
  return 0.0f;
}

HWY_INLINE float Q4Scale(float signed_max) { return signed_max / -8.0f; }

HWY_INLINE void QuantizeQ4Block(const float* x, uint8_t* out) {
  const QTag d;
  const hn::RebindToSigned<QTag> di;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const float dscale = Q4Scale(SignedAbsMax(x));
  const float id = inverse_scale(dscale);
  StoreF16(out, F32ToF16(dscale));
  HWY_ALIGN int32_t q[32];
  for (int64_t j = 0; j < 32; j += L) {
    // x * id + 8.5, truncated toward zero (a conversion), at most 15.
    const auto v = hn::Add(hn::Mul(hn::LoadU(d, x + j), hn::Set(d, id)), hn::Set(d, 8.5f));
    hn::Store(hn::Min(hn::ConvertTo(di, v), hn::Set(di, 15)), di, q + j);
  }
  for (int j = 0; j < 16; ++j) out[2 + j] = static_cast<uint8_t>(q[j] | (q[j + 16] << 4));
}

// ---------------------------------------------------------------- Q4_K

using KTag = hn::CappedTag<float, 8>;  // lanes = sub-blocks

// ggml's nearest_int, lane-wise: the bits of v + 1.5 * 2^23.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToSigned<D>> NearestInt(D d, hn::Vec<D> v) {
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(di, hn::Add(v, hn::Set(d, 12582912.0f)));
  return hn::Sub(hn::And(bits, hn::Set(di, 0x007fffff)), hn::Set(di, 0x00400000));
}

template <class D>
HWY_INLINE hn::Vec<D> Level(D d, hn::Vec<D> v) {  // clamp(nearest_int(v), 0, 15) as a float
  const hn::RebindToSigned<D> di;
  return hn::ConvertTo(d, hn::Min(hn::Max(NearestInt(d, v), hn::Zero(di)), hn::Set(di, 15)));
}

// The fit of make_qkx2_quants (15 levels, rmin -1, rdelta 0.1, 20 steps) for
// Lanes(d) sub-blocks at once: xs[i] and ws[i] hold value i of each lane's
// sub-block and its weight. Out: the scale, -min, and the levels lv[i].
template <class D>
HWY_INLINE void FitSubBlocks(D d, const hn::Vec<D>* xs, const hn::Vec<D>* ws, hn::Vec<D>* lv, hn::Vec<D>* scale_out,
                             hn::Vec<D>* neg_min_out) {
  using V = hn::Vec<D>;
  const V zero = hn::Zero(d);
  V min = xs[0], max = xs[0], sum_w = ws[0];
  V sum_x = hn::Mul(sum_w, xs[0]);
  for (int i = 1; i < 32; ++i) {
    min = hn::IfThenElse(hn::Lt(xs[i], min), xs[i], min);
    max = hn::IfThenElse(hn::Gt(xs[i], max), xs[i], max);
    sum_w = hn::Add(sum_w, ws[i]);
    sum_x = hn::Add(sum_x, hn::Mul(ws[i], xs[i]));
  }
  min = hn::IfThenElse(hn::Gt(min, zero), zero, min);
  V iscale = hn::Div(hn::Set(d, 15.0f), hn::Sub(max, min));
  // All levels 0, scale 0: a flat sub-block, or one whose 15 / range
  // overflows (FiniteOrZero); its lanes compute on with Inf, then are reset.
  const auto flat = hn::Or(hn::Eq(max, min), hn::Not(hn::IsFinite(iscale)));
  const V flat_min = min;  // what a flat lane keeps, whatever its trials found
  V scale = hn::Div(hn::Set(d, 1.0f), iscale);
  V best = zero;
  for (int i = 0; i < 32; ++i) {
    lv[i] = Level(d, hn::Mul(iscale, hn::Sub(xs[i], min)));
    V diff = hn::Sub(hn::Add(hn::Mul(scale, lv[i]), min), xs[i]);
    diff = hn::Mul(diff, diff);
    best = hn::Add(best, hn::Mul(ws[i], diff));
  }
  V trial[32];
  for (int step = 0; step <= 20; ++step) {
    // (rmin + rdelta * step) + nmax over max - min, with the min of the best
    // fit so far (the reference updates it as it goes).
    const float numer = -1.0f + 0.1f * static_cast<float>(step) + 15.0f;
    iscale = hn::Div(hn::Set(d, numer), hn::Sub(max, min));
    const auto tried = hn::IsFinite(iscale);  // a grid of Inf levels is not tried
    V sum_l = zero, sum_l2 = zero, sum_xl = zero;
    for (int i = 0; i < 32; ++i) {
      trial[i] = Level(d, hn::Mul(iscale, hn::Sub(xs[i], min)));
      const V wl = hn::Mul(ws[i], trial[i]);
      sum_l = hn::Add(sum_l, wl);
      sum_l2 = hn::Add(sum_l2, hn::Mul(wl, trial[i]));
      sum_xl = hn::Add(sum_xl, hn::Mul(wl, xs[i]));
    }
    const V D2 = hn::Sub(hn::Mul(sum_w, sum_l2), hn::Mul(sum_l, sum_l));
    const auto solvable = hn::And(tried, hn::Gt(D2, zero));
    V this_scale = hn::Div(hn::Sub(hn::Mul(sum_w, sum_xl), hn::Mul(sum_x, sum_l)), D2);
    V this_min = hn::Div(hn::Sub(hn::Mul(sum_l2, sum_x), hn::Mul(sum_l, sum_xl)), D2);
    const auto positive = hn::Gt(this_min, zero);
    this_scale = hn::IfThenElse(positive, hn::Div(sum_xl, sum_l2), this_scale);
    this_min = hn::IfThenElse(positive, zero, this_min);
    V error = zero;
    for (int i = 0; i < 32; ++i) {
      V diff = hn::Sub(hn::Add(hn::Mul(this_scale, trial[i]), this_min), xs[i]);
      diff = hn::Mul(diff, diff);
      error = hn::Add(error, hn::Mul(ws[i], diff));
    }
    const auto better = hn::And(solvable, hn::Lt(error, best));
    for (int i = 0; i < 32; ++i) lv[i] = hn::IfThenElse(better, trial[i], lv[i]);
    best = hn::IfThenElse(better, error, best);
    scale = hn::IfThenElse(better, this_scale, scale);
    min = hn::IfThenElse(better, this_min, min);
  }
  for (int i = 0; i < 32; ++i) lv[i] = hn::IfThenZeroElse(flat, lv[i]);
  *scale_out = hn::IfThenZeroElse(flat, scale);
  *neg_min_out = hn::Neg(hn::IfThenElse(flat, flat_min, min));
}

HWY_INLINE void QuantizeQ4KBlock(const float* x, uint8_t* out) {
  const KTag d;
  using V = hn::Vec<KTag>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  HWY_ALIGN float scales[8], mins[8], lanes[8];
  uint8_t levels[256];
  for (int64_t j0 = 0; j0 < 8; j0 += L) {
    V xs[32], ws[32], lv[32];
    for (int i = 0; i < 32; ++i) {
      for (int64_t l = 0; l < L; ++l) lanes[l] = x[32 * (j0 + l) + i];
      xs[i] = hn::Load(d, lanes);
    }
    V sum_x2 = hn::Zero(d);
    for (int i = 0; i < 32; ++i) sum_x2 = hn::Add(sum_x2, hn::Mul(xs[i], xs[i]));
    const V av_x = hn::Sqrt(hn::Div(sum_x2, hn::Set(d, 32.0f)));
    for (int i = 0; i < 32; ++i) ws[i] = hn::Add(av_x, hn::Abs(xs[i]));
    V scale, neg_min;
    FitSubBlocks(d, xs, ws, lv, &scale, &neg_min);
    hn::Store(scale, d, scales + j0);
    hn::Store(neg_min, d, mins + j0);
    for (int i = 0; i < 32; ++i) {
      hn::Store(lv[i], d, lanes);
      for (int64_t l = 0; l < L; ++l) levels[32 * (j0 + l) + i] = static_cast<uint8_t>(lanes[l]);
    }
  }
  impl::quantize::pack_q4_k_scales(scales, mins, out);
  const QTag dq;
  const int64_t LQ = static_cast<int64_t>(hn::Lanes(dq));
  for (int j = 0; j < 8; ++j) {
    float dsub, msub;
    impl::quantize::q4_k_sub_block(out, j, &dsub, &msub);
    if (dsub == 0) continue;  // the sub-block keeps its fitted levels
    HWY_ALIGN float lvl[32];
    for (int64_t i = 0; i < 32; i += LQ) {
      const auto v = hn::Div(hn::Add(hn::LoadU(dq, x + 32 * j + i), hn::Set(dq, msub)), hn::Set(dq, dsub));
      hn::Store(Level(dq, v), dq, lvl + i);
    }
    for (int i = 0; i < 32; ++i) levels[32 * j + i] = static_cast<uint8_t>(lvl[i]);
  }
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l)
      out[16 + 32 * c + l] = static_cast<uint8_t>(levels[64 * c + l] | (levels[64 * c + 32 + l] << 4));
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_QUANTIZE_INL_H_
