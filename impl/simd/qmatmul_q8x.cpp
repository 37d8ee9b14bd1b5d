// libtl_kernels: the q8x matmuls of tinyllm/quant.h (ggml's CPU form: x
// quantized to Q8_0 or Q8_K per block, integer dot products per block, the
// blocks' terms added in f32), compiled once per Highway target.
//
// x is quantized once per call (impl/common/q8x.hpp, plain C: M K values
// against the N K weights). Each block's integer sum is taken in vectors of
// int16 (values promoted from int8 or from the 4-bit quants) with
// ReorderWidenMulAccumulate (pmaddwd on x86), which pairs lanes in an order
// of its own: integer sums are exact, so no order shows. The f32 part, one
// term per block added in block order, is the shared scalar code: every
// output's roundings depend on K alone (batch and thread invariant), and
// every target gives the scalar backend's bits.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/qmatmul_q8x.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/common/q8x.hpp"
#include "impl/simd/parallel.h"
#include "impl/simd/qmatmul_q8x_vnni.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace q8x = konform::impl::q8x;

// int16 vectors of at most 16 lanes (a Q4_0 block's 16 bytes of nibbles, a
// Q4_K sub-block's 32 values in two), int32 accumulators of half as many.
using D16 = hn::CappedTag<int16_t, 16>;
using D32 = hn::Repartition<int32_t, D16>;
using DI8 = hn::Rebind<int8_t, D16>;
using DU8 = hn::Rebind<uint8_t, D16>;

HWY_INLINE int32_t Total(hn::Vec<D32> a, hn::Vec<D32> b) {
  const D32 d32;
  return hn::GetLane(hn::SumOfLanes(d32, hn::Add(a, b)));
}

// sum_j w[j] x[j] over n int8 values (n a multiple of the lanes: 32).
HWY_INLINE int32_t DotI8(const int8_t* w, const int8_t* x, int n) {
  const D16 d16;
  const D32 d32;
  const DI8 d8;
  auto s0 = hn::Zero(d32), s1 = hn::Zero(d32);
  for (int j = 0; j < n; j += static_cast<int>(hn::Lanes(d16)))
    s0 = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::LoadU(d8, w + j)),
                                       hn::PromoteTo(d16, hn::LoadU(d8, x + j)), s0, s1);
  return Total(s0, s1);
}

// Q4_0: sum_j ((q_j & 15) - 8) x_j + ((q_j >> 4) - 8) x_{j + 16} over 16 bytes.
HWY_INLINE int32_t DotQ4_0(const uint8_t* q, const int8_t* x) {
  const D16 d16;
  const D32 d32;
  const DI8 d8;
  const DU8 du8;
  const auto mask = hn::Set(d16, 15), eight = hn::Set(d16, 8);
  auto s0 = hn::Zero(d32), s1 = hn::Zero(d32);
  for (int j = 0; j < 16; j += static_cast<int>(hn::Lanes(d16))) {
    const auto v = hn::PromoteTo(d16, hn::LoadU(du8, q + j));
    const auto lo = hn::Sub(hn::And(v, mask), eight), hi = hn::Sub(hn::ShiftRight<4>(v), eight);
    s0 = hn::ReorderWidenMulAccumulate(d32, lo, hn::PromoteTo(d16, hn::LoadU(d8, x + j)), s0, s1);
    s0 = hn::ReorderWidenMulAccumulate(d32, hi, hn::PromoteTo(d16, hn::LoadU(d8, x + 16 + j)), s0, s1);
  }
  return Total(s0, s1);
}

// Q4_K: the two sub-blocks 2i (low nibbles) and 2i + 1 (high) of 32 bytes q.
HWY_INLINE void DotQ4_KPair(const uint8_t* q, const int8_t* x, int32_t* lo_sum, int32_t* hi_sum) {
  const D16 d16;
  const D32 d32;
  const DI8 d8;
  const DU8 du8;
  const auto mask = hn::Set(d16, 15);
  auto a0 = hn::Zero(d32), a1 = hn::Zero(d32), b0 = hn::Zero(d32), b1 = hn::Zero(d32);
  for (int j = 0; j < 32; j += static_cast<int>(hn::Lanes(d16))) {
    const auto v = hn::PromoteTo(d16, hn::LoadU(du8, q + j));
    a0 = hn::ReorderWidenMulAccumulate(d32, hn::And(v, mask), hn::PromoteTo(d16, hn::LoadU(d8, x + j)), a0, a1);
    b0 =
        hn::ReorderWidenMulAccumulate(d32, hn::ShiftRight<4>(v), hn::PromoteTo(d16, hn::LoadU(d8, x + 32 + j)), b0, b1);
  }
  *lo_sum = Total(a0, a1);
  *hi_sum = Total(b0, b1);
}

// Columns [n0, n1) of y for every row; xq holds each row's K / QK x blocks.
void Q8xColumns(int format, const void* xq, const uint8_t* w, float* y, int64_t M, int64_t N, int64_t K, int64_t n0,
                int64_t n1) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // The same sums by VNNI where the CPU has it (qmatmul_q8x_vnni.cpp): the same bits.
  if (HasAvx512Vnni()) return Q8xColumnsVnni(format, xq, w, y, M, N, K, n0, n1);
#endif
  if (format == 2) {
    const auto* xb = static_cast<const q8x::XBlockQ8K*>(xq);
    const int64_t nb = K / 256, rb = nb * 144;
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t m = 0; m < M; ++m) {
        float acc = 0.0f;
        for (int64_t b = 0; b < nb; ++b) {
          const uint8_t* wb = w + n * rb + b * 144;
          const q8x::XBlockQ8K& x = xb[m * nb + b];
          int32_t isum = 0, isum_min = 0;
          for (int pair = 0; pair < 4; ++pair) {
            int32_t lo, hi;
            DotQ4_KPair(wb + 16 + 32 * pair, x.qs + 64 * pair, &lo, &hi);
            int sc0, m0, sc1, m1;
            konform::impl::quantize::q4_k_scale_min(2 * pair, wb + 4, &sc0, &m0);
            konform::impl::quantize::q4_k_scale_min(2 * pair + 1, wb + 4, &sc1, &m1);
            isum += sc0 * lo + sc1 * hi;
            isum_min +=
                m0 * (x.bsums[4 * pair] + x.bsums[4 * pair + 1]) + m1 * (x.bsums[4 * pair + 2] + x.bsums[4 * pair + 3]);
          }
          const float d = konform::impl::f16::F16ToF32(konform::impl::f16::LoadF16(wb));
          const float dmin = konform::impl::f16::F16ToF32(konform::impl::f16::LoadF16(wb + 2));
          acc = acc + q8x::term_q4_k(d, dmin, x.d, isum, isum_min);
        }
        y[m * N + n] = acc;
      }
    return;
  }
  const auto* xb = static_cast<const q8x::XBlockQ8*>(xq);
  const int64_t bytes = format == 0 ? 34 : 18, nb = K / 32, rb = nb * bytes;
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t m = 0; m < M; ++m) {
      float acc = 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* wb = w + n * rb + b * bytes;
        const q8x::XBlockQ8& x = xb[m * nb + b];
        const int32_t isum =
            format == 0 ? DotI8(reinterpret_cast<const int8_t*>(wb + 2), x.qs, 32) : DotQ4_0(wb + 2, x.qs);
        acc = acc + q8x::term(konform::impl::f16::F16ToF32(konform::impl::f16::LoadF16(wb)), x.d, isum);
      }
      y[m * N + n] = acc;
    }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <vector>

#include "impl/common/quant_args.hpp"
#include "tinyllm/quant.h"

namespace konform::simd {

HWY_EXPORT(Q8xColumns);

namespace {

// Below this many multiply-adds one thread does it all (as Matmul).
constexpr int64_t kParallelWork = int64_t{1} << 22;

tl_status qmatmul_q8x(const char* fn, int format, int64_t qk, const float* x, const void* w, float* y, int64_t M,
                      int64_t N, int64_t K) {
  if (tl_status s = konform::impl::quant_args::check_qmatmul_q8x(fn, x, M, N, K, qk)) return s;
  if (M == 0 || N == 0) return TL_OK;
  // x's blocks, quantized once for every column.
  std::vector<impl::q8x::XBlockQ8> x8;
  std::vector<impl::q8x::XBlockQ8K> xk;
  const void* xq;
  if (format == 2) {
    xk.resize(static_cast<size_t>(M * K / 256));
    for (size_t b = 0; b < xk.size(); ++b) impl::q8x::quantize_x_q8_k(x + 256 * b, &xk[b]);
    xq = xk.data();
  } else {
    x8.resize(static_cast<size_t>(M * K / 32));
    for (size_t b = 0; b < x8.size(); ++b) impl::q8x::quantize_x_q8_0(x + 32 * b, &x8[b]);
    xq = x8.data();
  }
  const auto* wb = static_cast<const uint8_t*>(w);
  const int64_t threads = M * N * std::max<int64_t>(K, 1) >= kParallelWork ? ThreadCount() : 1;
  const int64_t per = ((N + threads - 1) / threads + 7) / 8 * 8;  // whole multiples of 8 columns
  ParallelFor((N + per - 1) / per, [&](int64_t t) {
    HWY_DYNAMIC_DISPATCH(Q8xColumns)(format, xq, wb, y, M, N, K, t * per, std::min(N, t * per + per));
  });
  return TL_OK;
}

}  // namespace
}  // namespace konform::simd

extern "C" {

tl_status tl_qmatmul_q8_0_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return konform::simd::qmatmul_q8x("tl_qmatmul_q8_0_q8x_f32", 0, TL_QK8_0, x, w, y, M, N, K);
}

tl_status tl_qmatmul_q4_0_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return konform::simd::qmatmul_q8x("tl_qmatmul_q4_0_q8x_f32", 1, TL_QK4_0, x, w, y, M, N, K);
}

tl_status tl_qmatmul_q4_k_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return konform::simd::qmatmul_q8x("tl_qmatmul_q4_k_q8x_f32", 2, TL_QK_K, x, w, y, M, N, K);
}

}  // extern "C"
#endif  // HWY_ONCE
